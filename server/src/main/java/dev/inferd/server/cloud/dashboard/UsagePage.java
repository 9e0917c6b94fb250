package dev.inferd.server.cloud.dashboard;

import dev.inferd.server.cloud.usage.UsageReport;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.ApiKey;
import dev.inferd.server.store.UsageStore;
import dev.inferd.server.store.UsageTotals;
import dev.inferd.server.store.UserStore;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import static dev.inferd.server.cloud.dashboard.Html.escape;

/**
 * The account's usage page: requests, tokens, audio seconds and cost per UTC day over a chosen range, across its
 * keys or for one, as charts and tables, and each key's share of the range.
 */
final class UsagePage {

    /** The range asked for: whole UTC days, both included; {@code key} null for all the account's keys. */
    record Range(LocalDate from, LocalDate to, ApiKey key) {
    }

    private UsagePage() {
    }

    static Pages.Page render(UserStore.Session s, Account account, List<ApiKey> keys, Range range,
                             List<UsageStore.KeyDay> cells) {
        List<String> days = new ArrayList<>();
        for (LocalDate d = range.from(); !d.isAfter(range.to()); d = d.plusDays(1)) days.add(d.toString());
        Map<String, ApiKey> keyById = new LinkedHashMap<>();
        keys.forEach(k -> keyById.put(k.id(), k));

        Map<String, UsageTotals> perDay = new TreeMap<>();
        Map<String, UsageTotals> perKey = new TreeMap<>();
        Map<String, Map<String, UsageTotals>> perKeyDay = new TreeMap<>();
        for (var cell : cells) {
            String day = date(cell.totals().day());
            perDay.merge(day, cell.totals(), UsageTotals::plus);
            perKey.merge(cell.keyId(), cell.totals(), UsageTotals::plus);
            perKeyDay.computeIfAbsent(cell.keyId(), k -> new TreeMap<>()).put(day, cell.totals());
        }
        UsageTotals total = perDay.values().stream().reduce(UsageTotals.NONE, UsageTotals::plus);

        var b = new StringBuilder();
        b.append("<h1>Usage of ").append(escape(account.name())).append("</h1>");
        b.append(form(keys, range));
        b.append("<section><h2>").append(range.key() == null ? "All keys" : "Key " + escape(range.key().name()))
                .append(", ").append(range.from()).append(" to ").append(range.to()).append("</h2>")
                .append(totalsTable(UsageReport.of(total)))
                .append("<p><a href=\"/dashboard/settings/usage.csv\">Export all usage (CSV)</a></p></section>");

        b.append("<section><h2>Requests per day</h2>");
        List<SvgChart.Series> requestSeries = new ArrayList<>();
        int color = 0;
        for (var entry : perKeyDay.entrySet()) {
            ApiKey key = keyById.get(entry.getKey());
            String name = key == null ? entry.getKey() : key.name() + " (" + key.prefix() + "...)";
            requestSeries.add(new SvgChart.Series(name, SvgChart.PALETTE.get(color++ % SvgChart.PALETTE.size()),
                    values(days, entry.getValue(), t -> BigDecimal.valueOf(t.requests()))));
        }
        b.append(cells.isEmpty() ? "<p class=\"muted\" id=\"chart-empty\">No requests in this period.</p>"
                : SvgChart.render("chart-requests", "requests", days, requestSeries));
        b.append("</section>");
        if (!cells.isEmpty()) {
            b.append("<section><h2>Tokens per day</h2>").append(SvgChart.render("chart-tokens", "tokens", days, List.of(
                    new SvgChart.Series("prompt tokens", SvgChart.PALETTE.get(0), values(days, perDay, t -> BigDecimal.valueOf(t.promptTokens()))),
                    new SvgChart.Series("completion tokens", SvgChart.PALETTE.get(1),
                            values(days, perDay, t -> BigDecimal.valueOf(t.completionTokens()))))))
                    .append("</section><section><h2>Audio seconds per day</h2>")
                    .append(SvgChart.render("chart-audio", "audio seconds", days, List.of(new SvgChart.Series("audio seconds",
                            SvgChart.PALETTE.get(2), values(days, perDay, t -> BigDecimal.valueOf(t.audioMillis(), 3))))))
                    .append("</section><section><h2>Cost per day (USD)</h2>")
                    .append(SvgChart.render("chart-cost", "USD", days, List.of(new SvgChart.Series("cost",
                            SvgChart.PALETTE.get(3), values(days, perDay, UsageTotals::costUsd)))))
                    .append("</section>");
        }

        b.append("<section><h2>Per day</h2><table id=\"days\"><tr><th>Day (UTC)</th>").append(HEAD).append("</tr>");
        for (var entry : perDay.entrySet()) {
            b.append("<tr data-day=\"").append(entry.getKey()).append("\"><td>").append(entry.getKey()).append("</td>")
                    .append(cells(UsageReport.of(entry.getValue()))).append("</tr>");
        }
        b.append("<tr class=\"total\"><th>Total</th>").append(cells(UsageReport.of(total))).append("</tr></table></section>");

        b.append("<section><h2>Per key</h2><table id=\"per-key\"><tr><th>Key</th>").append(HEAD).append("</tr>");
        for (var entry : perKey.entrySet()) {
            ApiKey key = keyById.get(entry.getKey());
            b.append("<tr data-key=\"").append(escape(entry.getKey())).append("\"><td><a href=\"/dashboard/usage?from=")
                    .append(range.from()).append("&amp;to=").append(range.to()).append("&amp;key=").append(escape(entry.getKey()))
                    .append("\">").append(escape(key == null ? entry.getKey() : key.name())).append("</a></td>")
                    .append(cells(UsageReport.of(entry.getValue()))).append("</tr>");
        }
        b.append("</table></section>");
        return Pages.page("Usage", s, b.toString(), null);
    }

    private static final String HEAD = "<th>Requests</th><th>Prompt tokens</th><th>Completion tokens</th>"
            + "<th>Audio seconds</th><th>Cost (USD)</th>";

    private static String form(List<ApiKey> keys, Range range) {
        var b = new StringBuilder("<section><form method=\"get\" action=\"/dashboard/usage\" id=\"range\">")
                .append("<label>From <input type=\"date\" name=\"from\" id=\"from\" required value=\"").append(range.from())
                .append("\"></label><label>To <input type=\"date\" name=\"to\" id=\"to\" required value=\"").append(range.to())
                .append("\"></label><label>Key <select name=\"key\" id=\"key\"><option value=\"\">all keys</option>");
        for (ApiKey k : keys) {
            b.append("<option value=\"").append(escape(k.id())).append('"')
                    .append(range.key() != null && range.key().id().equals(k.id()) ? " selected" : "").append('>')
                    .append(escape(k.name())).append(" (").append(escape(k.prefix())).append("...)</option>");
        }
        return b.append("</select></label><button type=\"submit\" id=\"show\">Show</button></form>")
                .append("<p class=\"muted\">Days are UTC days; both ends are included; at most ")
                .append(Dashboard.MAX_USAGE_DAYS).append(" days.</p></section>").toString();
    }

    private static String totalsTable(UsageReport t) {
        return "<table id=\"range-totals\"><tr>" + HEAD + "</tr><tr>" + cells(t) + "</tr></table>";
    }

    private static String cells(UsageReport t) {
        return "<td class=\"requests\">" + t.requests() + "</td><td class=\"prompt\">" + t.promptTokens()
                + "</td><td class=\"completion\">" + t.completionTokens() + "</td><td class=\"audio\">"
                + t.audioSeconds().toPlainString() + "</td><td class=\"cost\">" + escape(t.costUsd()) + "</td>";
    }

    private static List<BigDecimal> values(List<String> days, Map<String, UsageTotals> byDay,
                                           Function<UsageTotals, BigDecimal> metric) {
        return days.stream().map(d -> byDay.containsKey(d) ? metric.apply(byDay.get(d)) : BigDecimal.ZERO).toList();
    }


    private static String date(long dayMillis) {
        return LocalDate.ofInstant(Instant.ofEpochMilli(dayMillis), ZoneOffset.UTC).toString();
    }
}
