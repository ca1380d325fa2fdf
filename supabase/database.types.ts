// Generated from supabase/migrations by `npm run db:types` (tools/database-types.ts).
// Do not edit: tests/db/database-types.test.ts fails when it no longer matches them.
export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
  // Allows to automatically instantiate createClient with right options
  // instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)
  __InternalSupabase: {
    PostgrestVersion: '12'
  }
  public: {
    Tables: {
      billing_provider_rules: {
        Row: {
          past_due_mail: boolean
          payment_change: string | null
          payment_change_events: string | null
          payment_row: string
          payment_user: string[]
          provider: string
          subscription_columns: string[]
          subscription_user: string[]
        }
        Insert: {
          past_due_mail?: boolean
          payment_change?: string | null
          payment_change_events?: string | null
          payment_row: string
          payment_user?: string[]
          provider: string
          subscription_columns?: string[]
          subscription_user?: string[]
        }
        Update: {
          past_due_mail?: boolean
          payment_change?: string | null
          payment_change_events?: string | null
          payment_row?: string
          payment_user?: string[]
          provider?: string
          subscription_columns?: string[]
          subscription_user?: string[]
        }
        Relationships: []
      }
      contact_messages: {
        Row: {
          company: string
          created_at: string
          email: string
          first_name: string
          id: string
          last_name: string
          message: string
        }
        Insert: {
          company: string
          created_at?: string
          email: string
          first_name: string
          id?: string
          last_name: string
          message: string
        }
        Update: {
          company?: string
          created_at?: string
          email?: string
          first_name?: string
          id?: string
          last_name?: string
          message?: string
        }
        Relationships: []
      }
      notification_outbox: {
        Row: {
          attempts: number
          category: string
          created_at: string
          data: NonNullable<Json>
          dedupe_key: string | null
          id: string
          kind: string
          last_error: string | null
          next_attempt_at: string
          sent_at: string | null
          status: string
          to_address: string
          updated_at: string
          user_id: string | null
        }
        Insert: {
          attempts?: number
          category: string
          created_at?: string
          data?: NonNullable<Json>
          dedupe_key?: string | null
          id?: string
          kind: string
          last_error?: string | null
          next_attempt_at?: string
          sent_at?: string | null
          status?: string
          to_address: string
          updated_at?: string
          user_id?: string | null
        }
        Update: {
          attempts?: number
          category?: string
          created_at?: string
          data?: NonNullable<Json>
          dedupe_key?: string | null
          id?: string
          kind?: string
          last_error?: string | null
          next_attempt_at?: string
          sent_at?: string | null
          status?: string
          to_address?: string
          updated_at?: string
          user_id?: string | null
        }
        Relationships: []
      }
      payment_history: {
        Row: {
          amount: number
          amount_refunded: number
          created_at: string
          currency: string
          description: string | null
          dispute_status: string | null
          id: string
          invoice_url: string | null
          provider: string
          provider_charge_id: string | null
          provider_payment_id: string
          status: string
          updated_at: string
          user_id: string
        }
        Insert: {
          amount: number
          amount_refunded?: number
          created_at?: string
          currency: string
          description?: string | null
          dispute_status?: string | null
          id?: string
          invoice_url?: string | null
          provider: string
          provider_charge_id?: string | null
          provider_payment_id: string
          status: string
          updated_at?: string
          user_id: string
        }
        Update: {
          amount?: number
          amount_refunded?: number
          created_at?: string
          currency?: string
          description?: string | null
          dispute_status?: string | null
          id?: string
          invoice_url?: string | null
          provider?: string
          provider_charge_id?: string | null
          provider_payment_id?: string
          status?: string
          updated_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: 'payment_history_provider_fkey'
            columns: ['provider']
            referencedRelation: 'billing_provider_rules'
            referencedColumns: ['provider']
          },
        ]
      }
      payment_totals: {
        Row: {
          total: number
          user_id: string
        }
        Insert: {
          total?: number
          user_id: string
        }
        Update: {
          total?: number
          user_id?: string
        }
        Relationships: []
      }
      rate_limits: {
        Row: {
          count: number
          key: string
          reset_at: string
        }
        Insert: {
          count: number
          key: string
          reset_at: string
        }
        Update: {
          count?: number
          key?: string
          reset_at?: string
        }
        Relationships: []
      }
      stripe_products: {
        Row: {
          active: boolean
          amount: number
          billing_interval: string
          currency: string
          name: string
          plan_key: string
          stripe_price_id: string
          stripe_product_id: string
          updated_at: string
        }
        Insert: {
          active?: boolean
          amount: number
          billing_interval: string
          currency: string
          name: string
          plan_key: string
          stripe_price_id: string
          stripe_product_id: string
          updated_at?: string
        }
        Update: {
          active?: boolean
          amount?: number
          billing_interval?: string
          currency?: string
          name?: string
          plan_key?: string
          stripe_price_id?: string
          stripe_product_id?: string
          updated_at?: string
        }
        Relationships: []
      }
      user_profiles: {
        Row: {
          avatar_path: string | null
          created_at: string
          display_name: string | null
          notify_billing: boolean
          notify_product_updates: boolean
          notify_security: boolean
          updated_at: string
          user_id: string
        }
        Insert: {
          avatar_path?: string | null
          created_at?: string
          display_name?: string | null
          notify_billing?: boolean
          notify_product_updates?: boolean
          notify_security?: boolean
          updated_at?: string
          user_id: string
        }
        Update: {
          avatar_path?: string | null
          created_at?: string
          display_name?: string | null
          notify_billing?: boolean
          notify_product_updates?: boolean
          notify_security?: boolean
          updated_at?: string
          user_id?: string
        }
        Relationships: []
      }
      user_subscriptions: {
        Row: {
          billing_cycle: string | null
          cancel_at: string | null
          cancel_at_period_end: boolean
          canceled_at: string | null
          cancellation_comment: string | null
          cancellation_feedback: string | null
          cancellation_reason: string | null
          card_brand: string | null
          card_last4: string | null
          created_at: string
          current_period_end: string | null
          current_period_start: string | null
          id: string
          last_event_at: string | null
          last_event_rank: number
          metadata: NonNullable<Json>
          payment_failed_at: string | null
          payment_retry_at: string | null
          plan_name: string | null
          polar_customer_id: string | null
          polar_product_id: string | null
          polar_subscription_id: string | null
          provider: string | null
          status: string | null
          stripe_customer_id: string | null
          stripe_subscription_id: string | null
          trial_end: string | null
          trial_start: string | null
          updated_at: string
          user_id: string
        }
        Insert: {
          billing_cycle?: string | null
          cancel_at?: string | null
          cancel_at_period_end?: boolean
          canceled_at?: string | null
          cancellation_comment?: string | null
          cancellation_feedback?: string | null
          cancellation_reason?: string | null
          card_brand?: string | null
          card_last4?: string | null
          created_at?: string
          current_period_end?: string | null
          current_period_start?: string | null
          id?: string
          last_event_at?: string | null
          last_event_rank?: number
          metadata?: NonNullable<Json>
          payment_failed_at?: string | null
          payment_retry_at?: string | null
          plan_name?: string | null
          polar_customer_id?: string | null
          polar_product_id?: string | null
          polar_subscription_id?: string | null
          provider?: string | null
          status?: string | null
          stripe_customer_id?: string | null
          stripe_subscription_id?: string | null
          trial_end?: string | null
          trial_start?: string | null
          updated_at?: string
          user_id: string
        }
        Update: {
          billing_cycle?: string | null
          cancel_at?: string | null
          cancel_at_period_end?: boolean
          canceled_at?: string | null
          cancellation_comment?: string | null
          cancellation_feedback?: string | null
          cancellation_reason?: string | null
          card_brand?: string | null
          card_last4?: string | null
          created_at?: string
          current_period_end?: string | null
          current_period_start?: string | null
          id?: string
          last_event_at?: string | null
          last_event_rank?: number
          metadata?: NonNullable<Json>
          payment_failed_at?: string | null
          payment_retry_at?: string | null
          plan_name?: string | null
          polar_customer_id?: string | null
          polar_product_id?: string | null
          polar_subscription_id?: string | null
          provider?: string | null
          status?: string | null
          stripe_customer_id?: string | null
          stripe_subscription_id?: string | null
          trial_end?: string | null
          trial_start?: string | null
          updated_at?: string
          user_id?: string
        }
        Relationships: [
          {
            foreignKeyName: 'user_subscriptions_provider_fkey'
            columns: ['provider']
            referencedRelation: 'billing_provider_rules'
            referencedColumns: ['provider']
          },
        ]
      }
      webhook_events: {
        Row: {
          event_id: string
          event_type: string
          occurred_at: string | null
          provider: string
          received_at: string
        }
        Insert: {
          event_id: string
          event_type: string
          occurred_at?: string | null
          provider: string
          received_at?: string
        }
        Update: {
          event_id?: string
          event_type?: string
          occurred_at?: string | null
          provider?: string
          received_at?: string
        }
        Relationships: [
          {
            foreignKeyName: 'webhook_events_provider_fkey'
            columns: ['provider']
            referencedRelation: 'billing_provider_rules'
            referencedColumns: ['provider']
          },
        ]
      }
    }
    Views: {
      [_ in never]: never
    }
    Functions: {
      account_billing_overview: {
        Args: { p_page?: number; p_page_size?: number }
        Returns: Json
      }
      account_settings_overview: {
        Args: Record<PropertyKey, never>
        Returns: Json
      }
      account_summary: { Args: Record<PropertyKey, never>; Returns: Json }
      apply_subscription_event: {
        Args: {
          p_event_id: string
          p_event_type: string
          p_fields: Json
          p_occurred_at: string
          p_provider: string
          p_user_id: string
        }
        Returns: string
      }
      billing_overview: {
        Args: { p_page?: number; p_page_size?: number }
        Returns: Json
      }
      claim_notifications: {
        Args: { p_lease_seconds: number; p_limit: number }
        Returns: {
          attempts: number
          created_at: string
          data: Json
          id: string
          kind: string
          to_address: string
          user_id: string
          wanted: boolean
        }[]
      }
      current_plan_change: { Args: Record<PropertyKey, never>; Returns: Json }
      email_change_waiting_for: {
        Args: Record<PropertyKey, never>
        Returns: string
      }
      email_link_state: {
        Args: { p_token_hash: string }
        Returns: {
          account_email: string
          age_seconds: number
          new_email: string
          sent_to: string
          token_type: string
        }[]
      }
      enqueue_attempts_notice: {
        Args: { p_data: Json; p_email: string; p_flow: string }
        Returns: boolean
      }
      enqueue_notification: {
        Args: {
          p_data: Json
          p_dedupe_key?: string
          p_kind: string
          p_to?: string
          p_user_id: string
        }
        Returns: boolean
      }
      fill_payment_details: {
        Args: {
          p_fields: Json
          p_payment_id?: string
          p_provider?: string
          p_provider_payment_id?: string
        }
        Returns: number
      }
      finish_notification: {
        Args: {
          p_attempt: number
          p_error: string
          p_id: string
          p_outcome: string
          p_retry_at: string
        }
        Returns: boolean
      }
      ledger_user: {
        Args: { p_data: Json; p_keys: string[]; p_named: string }
        Returns: string
      }
      note_payment_failure: {
        Args: { p_failed_at: string; p_retry_at: string; p_user_id: string }
        Returns: undefined
      }
      operations_metrics: {
        Args: Record<PropertyKey, never>
        Returns: {
          name: string
          provider: string
          value: number
        }[]
      }
      rate_limit_hit: {
        Args: { p_key: string; p_limit: number; p_window_ms: number }
        Returns: Json
      }
      rate_limit_hits: {
        Args: { p_keys: string[]; p_limits: number[]; p_window_ms: number[] }
        Returns: Json
      }
      record_payment_event: {
        Args: {
          p_event_id: string
          p_event_type: string
          p_occurred_at: string
          p_payment: Json
          p_provider: string
        }
        Returns: string
      }
      record_payment_failure: {
        Args: {
          p_data: Json
          p_event_id: string
          p_event_type: string
          p_occurred_at: string
          p_payment?: Json
          p_provider: string
          p_user_id: string
        }
        Returns: string
      }
      record_polar_order_row: { Args: { p_payment: Json }; Returns: boolean }
      record_stripe_charge: { Args: { p_charge: Json }; Returns: string }
      record_stripe_invoice_row: { Args: { p_payment: Json }; Returns: boolean }
      record_webhook_event: {
        Args: {
          p_event_id: string
          p_event_type: string
          p_occurred_at: string
          p_provider: string
        }
        Returns: boolean
      }
      schema_version: { Args: Record<PropertyKey, never>; Returns: string }
      session_is_active: {
        Args: { p_session_id: string; p_user_id: string }
        Returns: boolean
      }
      sign_up_confirmed: {
        Args: { p_email: string; p_nonce: string }
        Returns: boolean
      }
      sign_up_unproven: {
        Args: { p_email: string; p_nonce: string; p_token_hash: string }
        Returns: boolean
      }
      store_contact_message: {
        Args: { p_message: Json; p_team: string }
        Returns: string
      }
      subscription_status_rank: { Args: { p_status: string }; Returns: number }
    }
    Enums: {
      [_ in never]: never
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, '__InternalSupabase'>

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, 'public'>]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema['Tables'] & DefaultSchema['Views'])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Tables'] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Views'])
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Tables'] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Views'])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema['Tables'] & DefaultSchema['Views'])
    ? (DefaultSchema['Tables'] & DefaultSchema['Views'])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    keyof DefaultSchema['Tables'] | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Tables']
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Tables'][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema['Tables']
    ? DefaultSchema['Tables'][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    keyof DefaultSchema['Tables'] | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Tables']
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions['schema']]['Tables'][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema['Tables']
    ? DefaultSchema['Tables'][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    keyof DefaultSchema['Enums'] | { schema: keyof DatabaseWithoutInternals },
  EnumName extends (DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions['schema']]['Enums']
    : never) = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions['schema']]['Enums'][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema['Enums']
    ? DefaultSchema['Enums'][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    keyof DefaultSchema['CompositeTypes'] | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends (PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions['schema']]['CompositeTypes']
    : never) = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions['schema']]['CompositeTypes'][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema['CompositeTypes']
    ? DefaultSchema['CompositeTypes'][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {},
  },
} as const
