-- Loads under way, for gateways to load a model once however many of them receive its first requests at once.
-- `workers.loading` lists the models a worker is loading, renewed with its row: it carries a load for as long as it
-- lasts. `model_loads` holds one claim per model, made by the gateway that starts a load before the worker's next
-- renewal shows it: the primary key lets exactly one gateway win, the others read the claim and send their requests
-- to the same worker. A claim lapses at `expires_at`, in milliseconds of the database's own clock (the gateways'
-- clocks need not agree), and is then taken over by the next claim.

ALTER TABLE workers ADD COLUMN loading VARCHAR(20000) NOT NULL DEFAULT '';

CREATE TABLE model_loads (
    model           VARCHAR(500)  PRIMARY KEY,
    worker          VARCHAR(100)  NOT NULL,
    token           VARCHAR(64)   NOT NULL,
    expires_at      BIGINT        NOT NULL
);
