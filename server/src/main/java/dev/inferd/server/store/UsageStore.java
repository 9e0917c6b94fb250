package dev.inferd.server.store;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The usage_records table. Each insert commits on its own, so a request's record survives a crash right after
 * it. Costs are exact decimal strings, added up here in {@link BigDecimal} (grouped by cost first, so a sum reads
 * one row per distinct price rather than one per request).
 */
public final class UsageStore {
    private static final long DAY_MILLIS = 86_400_000L;

    private final Database db;

    public UsageStore(Database db) {
        this.db = db;
    }

    private static final String INSERT = "INSERT INTO usage_records (id, account_id, key_id, model, endpoint, prompt_tokens,"
            + " completion_tokens, cached_tokens, audio_millis, status, latency_ms, cost_usd, at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    public void insert(UsageRecord r) {
        db.update(INSERT, params(r));
    }

    /** Inserts {@code records} in one transaction: one commit (one sync to disk) for all of them. */
    public void insertAll(List<UsageRecord> records) {
        commit(records, List.of());
    }

    /**
     * Inserts {@code records} and adds {@code refusals} to their keys' minutes, in one transaction: one commit (one
     * sync to disk) for all of them.
     */
    public void commit(List<UsageRecord> records, List<RefusedRequests> refusals) {
        db.inTransaction(tx -> {
            tx.batch(INSERT, records.stream().map(UsageStore::params).toList());
            for (RefusedRequests r : refusals) tx.update(ADD_REFUSALS, refusalParams(r));
            return null;
        });
    }

    // Both SQLite (3.24 on) and PostgreSQL take this upsert as written.
    private static final String ADD_REFUSALS = "INSERT INTO refused_requests (key_id, minute, account_id, forbidden, rate_limited)"
            + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (key_id, minute) DO UPDATE SET"
            + " forbidden = refused_requests.forbidden + excluded.forbidden,"
            + " rate_limited = refused_requests.rate_limited + excluded.rate_limited";

    public void addRefusals(List<RefusedRequests> refusals) {
        commit(List.of(), refusals);
    }

    private static Object[] refusalParams(RefusedRequests r) {
        return new Object[]{r.keyId(), r.minute(), r.accountId(), r.forbidden(), r.rateLimited()};
    }

    /**
     * Rewrites the record with {@code r}'s id as {@code r} says (a request whose record was committed before its last
     * bytes went out, and whose client then left); false when there is no such record.
     */
    public boolean replace(UsageRecord r) {
        return db.update("UPDATE usage_records SET model = ?, prompt_tokens = ?, completion_tokens = ?, cached_tokens = ?,"
                        + " audio_millis = ?, status = ?, latency_ms = ?, cost_usd = ? WHERE id = ?",
                Database.nullableText(r.model()), r.promptTokens(), r.completionTokens(), r.cachedTokens(), r.audioMillis(),
                r.status(), r.latencyMillis(), r.costUsd().toPlainString(), r.id()) == 1;
    }

    /**
     * The refused requests the filter selects, per key and minute, oldest first (a filter's model selects none: a
     * refusal is counted without one).
     */
    public List<RefusedRequests> refusals(UsageFilter f) {
        if (f.model() != null) return List.of();
        var sql = new StringBuilder("SELECT * FROM refused_requests WHERE account_id = ?");
        List<Object> params = new ArrayList<>(List.of(f.accountId()));
        if (f.keyId() != null) {
            sql.append(" AND key_id = ?");
            params.add(f.keyId());
        }
        if (f.from() != null) {
            sql.append(" AND minute >= ?");
            params.add(RefusedRequests.minuteOf(f.from()));
        }
        if (f.to() != null) {
            sql.append(" AND minute < ?");
            params.add(f.to());
        }
        return db.query(sql + " ORDER BY minute, key_id", r -> new RefusedRequests(r.getString("account_id"),
                r.getString("key_id"), r.getLong("minute"), r.getLong("forbidden"), r.getLong("rate_limited")), params.toArray());
    }

    private static Object[] params(UsageRecord r) {
        return new Object[]{r.id(), r.accountId(), r.keyId(), Database.nullableText(r.model()), r.endpoint(), r.promptTokens(),
                r.completionTokens(), r.cachedTokens(), r.audioMillis(), r.status(), r.latencyMillis(),
                r.costUsd().toPlainString(), r.at()};
    }

    /** The records, newest first. */
    public List<UsageRecord> list(UsageFilter filter, int limit) {
        var where = where(filter);
        List<Object> params = new ArrayList<>(where.params());
        params.add(limit);
        return db.query("SELECT * FROM usage_records" + where.sql() + " ORDER BY at DESC, id DESC LIMIT ?",
                UsageStore::row, params.toArray());
    }

    public UsageTotals totals(UsageFilter filter) {
        var where = where(filter);
        return db.query("SELECT " + SUMS + ", cost_usd FROM usage_records" + where.sql() + " GROUP BY cost_usd",
                        r -> sums(r, 0), where.params().toArray())
                .stream().reduce(UsageTotals.NONE, UsageTotals::plus);
    }

    /** Totals per UTC day, oldest first; days without requests are left out. */
    public List<UsageTotals> daily(UsageFilter filter) {
        var where = where(filter);
        Map<Long, UsageTotals> days = new TreeMap<>();
        db.query("SELECT " + SUMS + ", cost_usd, at / " + DAY_MILLIS + " AS day_index FROM usage_records" + where.sql()
                        + " GROUP BY at / " + DAY_MILLIS + ", cost_usd",
                r -> sums(r, r.getLong("day_index") * DAY_MILLIS), where.params().toArray())
                .forEach(t -> days.merge(t.day(), t, UsageTotals::plus));
        return List.copyOf(days.values());
    }

    /** One key's totals on one UTC day. */
    public record KeyDay(String keyId, UsageTotals totals) {
    }

    /** Totals per key and UTC day, oldest day first, keys in id order within a day; empty days are left out. */
    public List<KeyDay> dailyPerKey(UsageFilter filter) {
        var where = where(filter);
        Map<String, UsageTotals> cells = new TreeMap<>();
        db.query("SELECT " + SUMS + ", cost_usd, key_id, at / " + DAY_MILLIS + " AS day_index FROM usage_records" + where.sql()
                        + " GROUP BY key_id, at / " + DAY_MILLIS + ", cost_usd",
                r -> new KeyDay(r.getString("key_id"), sums(r, r.getLong("day_index") * DAY_MILLIS)), where.params().toArray())
                .forEach(k -> cells.merge(String.format("%020d %s", k.totals().day(), k.keyId()), k.totals(), UsageTotals::plus));
        return cells.entrySet().stream().map(e -> new KeyDay(e.getKey().substring(21), e.getValue())).toList();
    }

    private static final String SUMS = "COUNT(*) AS requests, SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion,"
            + " SUM(cached_tokens) AS cached, SUM(audio_millis) AS audio";

    private static UsageTotals sums(ResultSet r, long day) throws SQLException {
        long requests = r.getLong("requests");
        return new UsageTotals(day, requests, r.getLong("prompt"), r.getLong("completion"), r.getLong("cached"),
                r.getLong("audio"), new BigDecimal(r.getString("cost_usd")).multiply(BigDecimal.valueOf(requests)));
    }

    private record Where(String sql, List<Object> params) {
    }

    private static Where where(UsageFilter f) {
        var sql = new StringBuilder(" WHERE account_id = ?");
        List<Object> params = new ArrayList<>(List.of(f.accountId()));
        if (f.keyId() != null) {
            sql.append(" AND key_id = ?");
            params.add(f.keyId());
        }
        if (f.model() != null) {
            sql.append(" AND model = ?");
            params.add(f.model());
        }
        if (f.from() != null) {
            sql.append(" AND at >= ?");
            params.add(f.from());
        }
        if (f.to() != null) {
            sql.append(" AND at < ?");
            params.add(f.to());
        }
        return new Where(sql.toString(), params);
    }

    static UsageRecord row(ResultSet r) throws SQLException {
        return new UsageRecord(r.getString("id"), r.getString("account_id"), r.getString("key_id"), r.getString("model"),
                r.getString("endpoint"), r.getInt("prompt_tokens"), r.getInt("completion_tokens"),
                r.getInt("cached_tokens"), r.getLong("audio_millis"), r.getInt("status"), r.getLong("latency_ms"),
                new BigDecimal(r.getString("cost_usd")), r.getLong("at"));
    }
}
