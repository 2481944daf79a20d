-- The api keeps a short-lived cache of verified sign-ins (api/src/auth/cache.rs). Every change
-- to what that cache holds is announced on the `auth_cache` channel when its transaction
-- commits, so every api process drops the entries it affects within milliseconds, whoever made
-- the change (an api, a worker, an operator's SQL). Payloads: `u:<user id>` (the user's row or
-- memberships), `s:<session id | token family id>` (one sign-in), `*` (roles, workspaces,
-- impersonations: everything). PostgreSQL folds identical notifications of one transaction.
CREATE FUNCTION auth_cache_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r JSONB;
BEGIN
    IF TG_ARGV[0] = '*' THEN
        PERFORM pg_notify('auth_cache', '*');
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        r := to_jsonb(OLD);
    ELSE
        r := to_jsonb(NEW);
    END IF;
    PERFORM pg_notify('auth_cache', TG_ARGV[0] || ':' || (r ->> TG_ARGV[1]));
    RETURN NULL;
END
$$;

-- `users::lock` rewrites a row unchanged: no notice for that.
CREATE TRIGGER users_auth_cache_upd AFTER UPDATE ON users FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION auth_cache_notify('u', 'id');
CREATE TRIGGER users_auth_cache_del AFTER DELETE ON users FOR EACH ROW
    EXECUTE FUNCTION auth_cache_notify('u', 'id');

CREATE TRIGGER web_sessions_auth_cache_upd AFTER UPDATE ON web_sessions FOR EACH ROW
    WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.token_hash IS DISTINCT FROM NEW.token_hash
          OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
    EXECUTE FUNCTION auth_cache_notify('s', 'id');
CREATE TRIGGER web_sessions_auth_cache_del AFTER DELETE ON web_sessions FOR EACH ROW
    EXECUTE FUNCTION auth_cache_notify('s', 'id');

-- A refresh marks its token used: not something the cache holds (it holds access tokens).
CREATE TRIGGER api_tokens_auth_cache_upd AFTER UPDATE ON api_tokens FOR EACH ROW
    WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
          OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.kind IS DISTINCT FROM NEW.kind)
    EXECUTE FUNCTION auth_cache_notify('s', 'family_id');
CREATE TRIGGER api_tokens_auth_cache_del AFTER DELETE ON api_tokens FOR EACH ROW
    EXECUTE FUNCTION auth_cache_notify('s', 'family_id');

CREATE TRIGGER members_auth_cache AFTER INSERT OR UPDATE OR DELETE ON members FOR EACH ROW
    EXECUTE FUNCTION auth_cache_notify('u', 'user_id');

CREATE TRIGGER impersonations_auth_cache AFTER INSERT OR UPDATE OR DELETE ON impersonations
    FOR EACH STATEMENT EXECUTE FUNCTION auth_cache_notify('*');

CREATE TRIGGER roles_auth_cache_upd AFTER UPDATE ON roles FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION auth_cache_notify('*');
CREATE TRIGGER roles_auth_cache_del AFTER DELETE ON roles
    FOR EACH STATEMENT EXECUTE FUNCTION auth_cache_notify('*');

-- What a membership shows of its workspace: name, type, switched-off modules. `orgs::lock`
-- and plan or seat-cap changes do not notify.
CREATE TRIGGER orgs_auth_cache_upd AFTER UPDATE ON orgs FOR EACH ROW
    WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.type IS DISTINCT FROM NEW.type
          OR OLD.disabled_modules IS DISTINCT FROM NEW.disabled_modules)
    EXECUTE FUNCTION auth_cache_notify('*');
CREATE TRIGGER orgs_auth_cache_del AFTER DELETE ON orgs
    FOR EACH STATEMENT EXECUTE FUNCTION auth_cache_notify('*');

-- The athletes list filters one workspace and sorts by name (`repo::athletes::list`): walking
-- this index in order stops after the page instead of sorting every athlete of the workspace.
CREATE INDEX athletes_org_sort ON athletes (org_id, last_name, first_name, id);
