/** Row type of public.user_profiles (supabase/migrations is the source of truth). */
export interface ProfileRow {
  user_id: string
  display_name: string | null
  avatar_path: string | null
  notify_product_updates: boolean
  notify_billing: boolean
  notify_security: boolean
  created_at: string
  updated_at: string
}
