package dev.inferd.server.cloud.usage;

import dev.inferd.server.cloud.auth.InputRules;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageTotals;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

/** Usage totals as the admin API and the dashboard show them: audio in seconds, cost as a decimal string. */
public record UsageReport(long requests, long promptTokens, long completionTokens, long cachedTokens,
                          BigDecimal audioSeconds, String costUsd) {

    public static UsageReport of(UsageTotals t) {
        return new UsageReport(t.requests(), t.promptTokens(), t.completionTokens(), t.cachedTokens(),
                BigDecimal.valueOf(t.audioMillis(), 3), t.costUsd().toPlainString());
    }

    /** One day of a series: its date (UTC) and its totals. */
    public record Day(String date, UsageReport totals) {
        public static List<Day> of(List<UsageTotals> days) {
            return days.stream().map(d -> new Day(LocalDate.ofInstant(Instant.ofEpochMilli(d.day()), ZoneOffset.UTC).toString(),
                    UsageReport.of(d))).toList();
        }
    }

    /**
     * One account's usage, optionally of one key and one model, over {@code [from, to)}: each a date (its first
     * moment in UTC), an ISO-8601 instant or epoch milliseconds; blank for open.
     *
     * @throws IllegalArgumentException for a bound that is none of those, or ids that cannot name anything
     */
    public static UsageFilter filter(String accountId, String keyId, String model, String from, String to) {
        Long start = InputRules.periodStart(from);
        Long end = InputRules.periodEnd(to);
        if (start != null && end != null && end < start) throw new IllegalArgumentException("the period ends before it starts");
        return UsageFilter.account(accountId).key(id("a key id", keyId)).model(id("a model id", model)).period(start, end);
    }

    private static String id(String what, String s) {
        return s == null || s.isBlank() ? null : InputRules.text(what, s, InputRules.MAX_SCOPE_ITEM);
    }
}
