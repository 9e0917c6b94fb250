-- The deployment's model catalog: what GET /v1/models lists and what a request may load. A removed model keeps
-- its row (removed_at set), so the built-in catalog is put in only once, into an empty table.

CREATE TABLE deployment_models (
    id              VARCHAR(200)  PRIMARY KEY,
    owned_by        VARCHAR(200)  NOT NULL,
    kind            VARCHAR(20)   NOT NULL,
    source          VARCHAR(2000) NOT NULL,
    created_at      BIGINT        NOT NULL,
    position        BIGINT        NOT NULL,
    removed_at      BIGINT
);
