/**
 * The roles of people signed in to the admin API, declared once, lowest first: each may do what
 * the ones before it may. Here, in the lowest layer that names them (the OIDC role mapping's
 * values); the sessions' rows, the routes' least roles and the dashboard take them from here, and
 * a test holds the PostgreSQL migration's CHECK to this list.
 */
export const SESSION_ROLES = ['viewer', 'editor', 'admin'] as const;

export type SessionRole = (typeof SESSION_ROLES)[number];
