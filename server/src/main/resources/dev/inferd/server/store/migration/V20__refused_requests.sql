-- Requests a key's scope or rate limit refused: counted per key and minute, not recorded one by one, so a
-- client that loops on refusals adds at most one row a minute per key.
CREATE TABLE refused_requests (
    key_id          VARCHAR(64)  NOT NULL REFERENCES api_keys (id),
    minute          BIGINT       NOT NULL,
    account_id      VARCHAR(64)  NOT NULL REFERENCES accounts (id),
    forbidden       BIGINT       NOT NULL,
    rate_limited    BIGINT       NOT NULL,
    PRIMARY KEY (key_id, minute)
);
CREATE INDEX refused_requests_account_minute ON refused_requests (account_id, minute);
