package dev.inferd.server.store;

import java.math.BigDecimal;

/** Usage added up: over a filter, or over one day ({@code day}: epoch ms of its start in UTC, else 0). */
public record UsageTotals(long day, long requests, long promptTokens, long completionTokens, long cachedTokens,
                          long audioMillis, BigDecimal costUsd) {

    public static final UsageTotals NONE = new UsageTotals(0, 0, 0, 0, 0, 0, BigDecimal.ZERO);

    public UsageTotals plus(UsageTotals o) {
        return new UsageTotals(day, requests + o.requests, promptTokens + o.promptTokens,
                completionTokens + o.completionTokens, cachedTokens + o.cachedTokens, audioMillis + o.audioMillis,
                costUsd.add(o.costUsd));
    }
}
