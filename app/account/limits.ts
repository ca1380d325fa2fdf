/** What a person types to confirm that they mean to delete their account. */
export const DELETE_CONFIRMATION = 'DELETE'
