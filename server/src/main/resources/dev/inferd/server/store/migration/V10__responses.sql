-- Responses kept for GET /v1/responses/{id}, its input items and follow-ups (previous_response_id), per account.
-- The JSON columns hold the response object, this request's input items, and the items a follow-up continues from.

CREATE TABLE responses (
    account_id      VARCHAR(64)   NOT NULL,
    id              VARCHAR(100)  NOT NULL,
    created_at      BIGINT        NOT NULL,
    response        TEXT          NOT NULL,
    input_items     TEXT          NOT NULL,
    context         TEXT          NOT NULL,
    PRIMARY KEY (account_id, id)
);
