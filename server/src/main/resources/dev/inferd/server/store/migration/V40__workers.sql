-- The worker registry: each `inferd worker` keeps its row here, renewed every few seconds, so that gateways know
-- where each model is loaded and how busy each worker is. `beats` counts the renewals: a gateway takes a worker out
-- when the count stops moving, measured on the gateway's own clock, so the machines' clocks need not agree.

CREATE TABLE workers (
    id              VARCHAR(100)  PRIMARY KEY,
    address         VARCHAR(500)  NOT NULL,
    models          VARCHAR(20000) NOT NULL,
    budget_bytes    BIGINT        NOT NULL,
    free_bytes      BIGINT        NOT NULL,
    running         INTEGER       NOT NULL,
    waiting         INTEGER       NOT NULL,
    kv_permille     INTEGER       NOT NULL,
    draining        INTEGER       NOT NULL,
    beats           BIGINT        NOT NULL,
    started_at      BIGINT        NOT NULL,
    renewed_at      BIGINT        NOT NULL
);
