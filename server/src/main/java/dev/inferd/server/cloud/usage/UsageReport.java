package dev.inferd.server.cloud.usage;

import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageTotals;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
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
     * A period bound given as a date ({@code 2026-11-01}, its start in UTC), an instant
     * ({@code 2026-11-01T12:00:00Z}) or epoch milliseconds; null for none.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static Long parseTime(String text) {
        if (text == null || text.isBlank()) return null;
        try {
            if (text.chars().allMatch(Character::isDigit)) return Long.parseLong(text);
            if (text.length() == 10) return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            return Instant.parse(text).toEpochMilli();
        } catch (DateTimeParseException | NumberFormatException e) {
            throw new IllegalArgumentException("not a date, an ISO-8601 instant or epoch milliseconds: " + text);
        }
    }

    public static UsageFilter filter(String accountId, String keyId, String model, String from, String to) {
        return UsageFilter.account(accountId).key(blankToNull(keyId)).model(blankToNull(model))
                .period(parseTime(from), parseTime(to));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
