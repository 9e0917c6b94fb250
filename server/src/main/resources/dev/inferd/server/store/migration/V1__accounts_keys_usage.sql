-- One schema for SQLite and PostgreSQL: text ids made by the application, times as epoch milliseconds,
-- amounts of money as exact decimal strings.

CREATE TABLE accounts (
    id              VARCHAR(64)  PRIMARY KEY,
    name            VARCHAR(200) NOT NULL UNIQUE,
    rate_limit_rps  INTEGER,
    created_at      BIGINT       NOT NULL
);

CREATE TABLE users (
    id              VARCHAR(64)  PRIMARY KEY,
    account_id      VARCHAR(64)  NOT NULL REFERENCES accounts (id),
    email           VARCHAR(320) NOT NULL UNIQUE,
    password_hash   VARCHAR(200) NOT NULL,
    created_at      BIGINT       NOT NULL
);

CREATE TABLE api_keys (
    id              VARCHAR(64)  PRIMARY KEY,
    account_id      VARCHAR(64)  NOT NULL REFERENCES accounts (id),
    name            VARCHAR(200) NOT NULL,
    prefix          VARCHAR(32)  NOT NULL,
    scope_models    TEXT         NOT NULL,
    scope_endpoints TEXT         NOT NULL,
    expires_at      BIGINT,
    created_at      BIGINT       NOT NULL,
    last_used_at    BIGINT,
    rate_limit_rps  INTEGER,
    revoked_at      BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- A key's secrets: one current, and during a rotation's grace period the previous one, until its expires_at.
CREATE TABLE key_secrets (
    secret_hash     VARCHAR(64)  PRIMARY KEY,
    key_id          VARCHAR(64)  NOT NULL REFERENCES api_keys (id),
    prefix          VARCHAR(32)  NOT NULL,
    created_at      BIGINT       NOT NULL,
    expires_at      BIGINT
);
CREATE INDEX key_secrets_key ON key_secrets (key_id);

CREATE TABLE audit_log (
    id              VARCHAR(64)  PRIMARY KEY,
    account_id      VARCHAR(64)  NOT NULL REFERENCES accounts (id),
    actor           VARCHAR(320) NOT NULL,
    action          VARCHAR(64)  NOT NULL,
    target          VARCHAR(200),
    detail          TEXT,
    source          VARCHAR(200),
    at              BIGINT       NOT NULL
);
CREATE INDEX audit_log_account_at ON audit_log (account_id, at);

CREATE TABLE usage_records (
    id                VARCHAR(64)  PRIMARY KEY,
    account_id        VARCHAR(64)  NOT NULL REFERENCES accounts (id),
    key_id            VARCHAR(64)  NOT NULL REFERENCES api_keys (id),
    model             VARCHAR(200),
    endpoint          VARCHAR(100) NOT NULL,
    prompt_tokens     INTEGER      NOT NULL,
    completion_tokens INTEGER      NOT NULL,
    cached_tokens     INTEGER      NOT NULL,
    audio_millis      BIGINT       NOT NULL,
    status            INTEGER      NOT NULL,
    latency_ms        BIGINT       NOT NULL,
    cost_usd          VARCHAR(40)  NOT NULL,
    at                BIGINT       NOT NULL
);
CREATE INDEX usage_records_account_at ON usage_records (account_id, at);
CREATE INDEX usage_records_key_at ON usage_records (key_id, at);

CREATE TABLE sessions (
    token_hash      VARCHAR(64)  PRIMARY KEY,
    user_id         VARCHAR(64)  NOT NULL REFERENCES users (id),
    csrf_token      VARCHAR(64)  NOT NULL,
    created_at      BIGINT       NOT NULL,
    expires_at      BIGINT       NOT NULL
);
