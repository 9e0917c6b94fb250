package dev.inferd.server.cloud;

import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.RowIds;
import dev.inferd.server.store.TestDatabases;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UsageStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The account usage page as HTML: requests, tokens, audio seconds and cost per day across the account's keys and per
 * key, over the range asked for, with its charts drawn as SVG; another account's usage never in it; a range that
 * is no range refused. The clock stands at 2026-11-20T10:00Z.
 */
class DashboardUsagePageTest {

    private static final String PASSWORD = "correct horse battery";
    private static Database db;
    private static CloudDeployment cloud;
    private static String ci;
    private static String batch;
    private static String betaKey;
    private static DashboardSession ana;
    private static DashboardSession bo;

    @BeforeAll
    static void start() throws Exception {
        db = TestDatabases.open(TestDatabases.SQLITE);
        cloud = CloudDeployment.start("127.0.0.1", 0, db, CloudConfig.empty(), new ModelRegistry(), new MutableClock());
        var actor = new Actor("test", "junit");
        var alpha = cloud.accounts().createAccount("alpha", actor);
        var beta = cloud.accounts().createAccount("beta", actor);
        cloud.accounts().addUser(alpha.id(), "ana@alpha.example", PASSWORD, actor);
        cloud.accounts().addUser(beta.id(), "bo@beta.example", PASSWORD, actor);
        ci = cloud.accounts().createKey(alpha.id(), KeySpec.named("ci"), actor).key().id();
        batch = cloud.accounts().createKey(alpha.id(), KeySpec.named("batch"), actor).key().id();
        betaKey = cloud.accounts().createKey(beta.id(), KeySpec.named("beta-secret-key"), actor).key().id();
        new UsageStore(db).insertAll(List.of(
                record(alpha.id(), ci, 10, 5, 0, "0.001", "2026-11-18T08:00:00Z"),
                record(alpha.id(), ci, 20, 5, 0, "0.001", "2026-11-18T09:00:00Z"),
                record(alpha.id(), batch, 0, 0, 61_500, "0.0205", "2026-11-18T23:59:59Z"),
                record(alpha.id(), batch, 7, 3, 0, "0.0001", "2026-11-19T00:00:00Z"),
                record(alpha.id(), ci, 1, 1, 0, "0", "2026-10-01T12:00:00Z"),
                record(beta.id(), betaKey, 999, 888, 0, "7.77", "2026-11-19T12:00:00Z")));
        String base = "http://127.0.0.1:" + cloud.port();
        var http = HttpClient.newHttpClient();
        ana = DashboardSession.signIn(http, base, "ana@alpha.example", PASSWORD);
        bo = DashboardSession.signIn(http, base, "bo@beta.example", PASSWORD);
    }

    @AfterAll
    static void stop() {
        if (cloud != null) cloud.close();
        if (db != null) db.close();
    }

    private static UsageRecord record(String account, String key, int prompt, int completion, long audioMillis, String cost,
                                      String at) {
        return new UsageRecord(RowIds.next("use"), account, key, "chat-model", audioMillis > 0 ? "audio.transcriptions"
                : "chat.completions", prompt, completion, 0, audioMillis, 200, 5, new BigDecimal(cost), Instant.parse(at).toEpochMilli());
    }

    @Test
    void theLastThirtyDaysAcrossTheAccountsKeysAsChartsAndTables() {
        var page = ana.get("/dashboard/usage");
        assertThat(page.statusCode()).isEqualTo(200);
        String html = page.body();
        assertThat(html).contains("value=\"2026-10-22\"").contains("value=\"2026-11-20\"");
        assertThat(cell(html, "range-totals", "requests")).isEqualTo("4");
        assertThat(cell(html, "range-totals", "prompt")).isEqualTo("37");
        assertThat(cell(html, "range-totals", "completion")).isEqualTo("13");
        assertThat(cell(html, "range-totals", "audio")).isEqualTo("61.500");
        assertThat(new BigDecimal(cell(html, "range-totals", "cost"))).isEqualByComparingTo("0.0226");

        assertThat(row(html, "data-day=\"2026-11-18\"")).contains(">3<").contains(">30<").contains(">10<").contains(">61.500<");
        assertThat(row(html, "data-day=\"2026-11-19\"")).contains(">1<").contains(">7<").contains(">3<");
        assertThat(html).doesNotContain("data-day=\"2026-10-01\"");
        assertThat(row(html, "data-key=\"" + ci + "\"")).contains(">ci<").contains("class=\"requests\">2<");
        assertThat(row(html, "data-key=\"" + batch + "\"")).contains(">batch<").contains("class=\"requests\">2<")
                .contains("class=\"audio\">61.500<");

        for (String chart : List.of("chart-requests", "chart-tokens", "chart-audio", "chart-cost")) {
            assertThat(html).contains("<svg id=\"" + chart + "\"");
        }
        // requests stacked by key: ci on the 18th, batch on the 18th and the 19th
        assertThat(count(html, "<rect class=\"bar\" data-day=\"2026-11-18\"")).isGreaterThanOrEqualTo(2);
        assertThat(html).contains("2026-11-18 batch (").contains(": 1 requests</title>");
        // nothing fetched from elsewhere, no script
        assertThat(html).doesNotContain("<script").doesNotContain("<link").doesNotContain("https://");
        assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://");
        // another account's usage is not there
        assertThat(html).doesNotContain(">999<").doesNotContain("7.77").doesNotContain("beta-secret-key").doesNotContain(betaKey);
    }

    @Test
    void aChosenRangeAndOneKey() {
        String october = ana.get("/dashboard/usage?from=2026-10-01&to=2026-10-01").body();
        assertThat(cell(october, "range-totals", "requests")).isEqualTo("1");
        assertThat(october).contains("<rect class=\"bar\" data-day=\"2026-10-01\"");

        String oneKey = ana.get("/dashboard/usage?from=2026-11-01&to=2026-11-30&key=" + batch).body();
        assertThat(cell(oneKey, "range-totals", "requests")).isEqualTo("2");
        assertThat(oneKey).contains("<option value=\"" + batch + "\" selected>").doesNotContain("data-key=\"" + ci + "\"");

        String empty = ana.get("/dashboard/usage?from=2025-01-01&to=2025-01-31").body();
        assertThat(empty).contains("id=\"chart-empty\"").contains("class=\"requests\">0<");
    }

    @Test
    void eachAccountSeesOnlyItsOwn() {
        var foreign = ana.get("/dashboard/usage?key=" + betaKey);
        assertThat(foreign.statusCode()).isEqualTo(404);
        assertThat(foreign.body()).doesNotContain(">999<").doesNotContain("beta-secret-key");

        String beta = bo.get("/dashboard/usage").body();
        assertThat(cell(beta, "range-totals", "requests")).isEqualTo("1");
        assertThat(cell(beta, "range-totals", "prompt")).isEqualTo("999");
        assertThat(beta).doesNotContain(ci).doesNotContain(batch).doesNotContain(">ci<");
    }

    @Test
    void aRangeThatIsNoneIsRefusedWithItsReason() {
        assertRefused(ana.get("/dashboard/usage?from=garbage"), "the range&#39;s start is a date, yyyy-mm-dd");
        assertRefused(ana.get("/dashboard/usage?from=2026-02-30&to=2026-03-01"), "not a date");
        assertRefused(ana.get("/dashboard/usage?from=2026-11-20&to=2026-11-01"), "before it starts");
        assertRefused(ana.get("/dashboard/usage?from=2024-01-01&to=2026-01-01"), "at most 366 days");
        assertRefused(ana.get("/dashboard/usage?from=0000-01-01&to=0000-01-02"), "1970 or later");
        assertThat(ana.get("/dashboard/usage?from=2025-11-20&to=2026-11-20").statusCode()).isEqualTo(200); // 366 days
    }

    @Test
    void theKeysUsagePageLinksToTheAccountsPageForThatKey() {
        String keyPage = ana.get("/dashboard/settings/api-keys/" + batch + "/usage").body();
        assertThat(keyPage).contains("href=\"/dashboard/usage?key=" + batch + "\"");
        assertThat(ana.get("/dashboard/settings/api-keys").body()).contains("href=\"/dashboard/usage\"");
    }

    private static void assertRefused(HttpResponse<String> response, String message) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.body()).contains(message).doesNotContain("Exception");
    }

    /** The text of the cell with class {@code cls} in the table with id {@code table}. */
    private static String cell(String html, String table, String cls) {
        String t = html.substring(html.indexOf("<table id=\"" + table + "\""));
        Matcher m = Pattern.compile("<td class=\"" + cls + "\">([^<]*)</td>").matcher(t.substring(0, t.indexOf("</table>")));
        assertThat(m.find()).as(cls + " in " + table).isTrue();
        return m.group(1);
    }

    private static String row(String html, String marker) {
        int start = html.indexOf("<tr " + marker);
        assertThat(start).as(marker).isNotNegative();
        return html.substring(start, html.indexOf("</tr>", start));
    }

    private static int count(String html, String what) {
        int n = 0;
        for (int i = html.indexOf(what); i >= 0; i = html.indexOf(what, i + 1)) n++;
        return n;
    }
}
