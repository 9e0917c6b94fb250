package dev.inferd.server.cloud.usage;

import dev.inferd.server.store.UsageRecord;

import java.time.Instant;
import java.util.List;

/** Usage records as CSV (RFC 4180): one header line, one line per request, times in ISO-8601 UTC. */
public final class UsageCsv {

    public static final String HEADER = "time,id,key_id,model,endpoint,prompt_tokens,completion_tokens,"
            + "cached_tokens,audio_seconds,status,latency_ms,cost_usd";

    private UsageCsv() {
    }

    public static String of(List<UsageRecord> records) {
        var out = new StringBuilder(HEADER).append("\r\n");
        for (UsageRecord r : records) {
            out.append(Instant.ofEpochMilli(r.at())).append(',')
                    .append(field(r.id())).append(',')
                    .append(field(r.keyId())).append(',')
                    .append(field(r.model())).append(',')
                    .append(field(r.endpoint())).append(',')
                    .append(r.promptTokens()).append(',')
                    .append(r.completionTokens()).append(',')
                    .append(r.cachedTokens()).append(',')
                    .append(java.math.BigDecimal.valueOf(r.audioMillis(), 3).toPlainString()).append(',')
                    .append(r.status()).append(',')
                    .append(r.latencyMillis()).append(',')
                    .append(r.costUsd().toPlainString()).append("\r\n");
        }
        return out.toString();
    }

    static String field(String value) {
        if (value == null) return "";
        boolean quote = value.indexOf(',') >= 0 || value.indexOf('"') >= 0 || value.indexOf('\n') >= 0
                || value.indexOf('\r') >= 0;
        // A leading =, +, - or @ would run as a formula in a spreadsheet.
        String safe = !value.isEmpty() && "=+-@".indexOf(value.charAt(0)) >= 0 ? "'" + value : value;
        return quote ? '"' + safe.replace("\"", "\"\"") + '"' : safe;
    }
}
