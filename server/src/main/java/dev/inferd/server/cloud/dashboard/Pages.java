package dev.inferd.server.cloud.dashboard;

import dev.inferd.server.cloud.auth.IssuedKey;
import dev.inferd.server.cloud.auth.InputRules;
import dev.inferd.server.cloud.auth.Secrets;
import dev.inferd.server.cloud.usage.UsageReport;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.ApiKey;
import dev.inferd.server.store.AuditEntry;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UserStore;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

import static dev.inferd.server.cloud.dashboard.Html.escape;

/** The dashboard's HTML pages. Every value from the database or a user goes through {@link Html#escape}. */
final class Pages {

    /** A page and the nonce its one inline script (if any) carries, which the Content-Security-Policy names. */
    record Page(String html, String nonce) {
    }

    /**
     * Every pair of text and background colour here has a contrast of at least 4.5:1 (WCAG AA), which
     * DashboardBrowserTest measures on every button and the header's text. Buttons get their colours set
     * explicitly: the browser's default button face is near white, and the header's white text on it is unreadable.
     */
    private static final String STYLE = """
            body{font-family:system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f8}
            header{background:#1d1d1f;color:#fff;padding:12px 24px;display:flex;gap:24px;align-items:center}
            header a{color:#fff}header .muted{color:#c8c8cc}
            button{font:inherit;font-size:14px;padding:4px 12px;margin:2px 4px 2px 0;border-radius:6px;border:1px solid #2448c8;
            background:#2448c8;color:#fff;cursor:pointer}button:hover{background:#1b3799;border-color:#1b3799}
            button:focus-visible{outline:3px solid #ffbf47;outline-offset:1px}
            form.rotate button,#copy{background:#fff;color:#1d1d1f;border-color:#6b6b73}form.rotate button:hover,#copy:hover{background:#e8e8ee}
            form.revoke button{background:#b00020;border-color:#b00020;color:#fff}form.revoke button:hover{background:#8a0019}
            header button{background:#1d1d1f;color:#fff;border-color:#c8c8cc}header button:hover{background:#3a3a40}
            label{margin-right:8px}svg.chart{max-width:100%;height:auto}tr.total th,tr.total td{font-weight:600}
            main{max-width:1100px;margin:24px auto;padding:0 24px}
            section{background:#fff;border-radius:8px;padding:16px 20px;margin-bottom:20px;box-shadow:0 1px 2px #0002}
            table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #eee}
            input,select{padding:4px 6px;margin:2px 8px 2px 0}.secret{font-family:monospace;font-size:15px;background:#fff8dc;padding:8px;
            border:1px solid #e0c060;display:inline-block}.error{color:#b00020}.muted{color:#5f5f66}form.inline{display:inline}
            """;

    private Pages() {
    }

    static Page message(String title, String text) {
        return page(title, null, "<section><h2>" + escape(title) + "</h2><p>" + escape(text)
                + "</p><p><a href=\"/dashboard/settings/api-keys\">Back to API keys</a></p></section>", null);
    }

    static Page login(String csrf, String error) {
        String body = "<section style=\"max-width:380px;margin:60px auto\"><h2>Sign in</h2>"
                + (error == null ? "" : "<p class=\"error\" id=\"error\">" + escape(error) + "</p>")
                + "<form method=\"post\" action=\"/dashboard/login\">"
                + "<input type=\"hidden\" name=\"csrf\" value=\"" + escape(csrf) + "\">"
                + "<p><label>E-mail<br><input type=\"email\" name=\"email\" id=\"email\" required autocomplete=\"username\"></label></p>"
                + "<p><label>Password<br><input type=\"password\" name=\"password\" id=\"password\" required autocomplete=\"current-password\"></label></p>"
                + "<p><button type=\"submit\" id=\"sign-in\">Sign in</button></p></form></section>";
        return page("Sign in", null, body, null);
    }

    static Page keys(UserStore.Session s, Account account, List<ApiKey> keys, IssuedKey issued, List<AuditEntry> audit,
                     long now) {
        String nonce = Secrets.randomToken();
        var b = new StringBuilder();
        b.append("<h1>Settings &gt; API Keys</h1>");
        if (issued != null) {
            b.append("<section id=\"new-key\"><h2>Your new key ").append(escape(issued.key().name())).append("</h2>")
                    .append("<p>Copy it now: it is shown only this once.</p>")
                    .append("<code class=\"secret\" id=\"secret\">").append(escape(issued.secret())).append("</code> ")
                    .append("<button type=\"button\" id=\"copy\">Copy</button> <span id=\"copied\" class=\"muted\"></span></section>");
        }
        b.append("<section><h2>Keys of ").append(escape(account.name())).append("</h2><table id=\"keys\"><tr><th>Name</th><th>Key</th>")
                .append("<th>State</th><th>Created</th><th>Last used</th><th>Expires</th><th>Models</th><th>Endpoints</th>")
                .append("<th>Rate limit</th><th></th></tr>");
        for (ApiKey k : keys) {
            String state = k.isRevoked() ? "revoked" : k.isExpired(now) ? "expired" : "active";
            b.append("<tr data-key=\"").append(escape(k.id())).append("\"><td class=\"name\">").append(escape(k.name()))
                    .append("</td><td><code>").append(escape(k.prefix())).append("...</code></td><td class=\"state\">")
                    .append(state).append("</td><td>").append(time(k.createdAt())).append("</td><td>").append(time(k.lastUsedAt()))
                    .append("</td><td class=\"expires\">").append(expiry(k.expiresAt())).append("</td><td>").append(escape(String.join(", ", k.scopes().models())))
                    .append("</td><td>").append(escape(String.join(", ", k.scopes().endpoints()))).append("</td><td>")
                    .append(k.rateLimit() == null ? "default" : k.rateLimit() + "/s").append("</td><td>")
                    .append("<a href=\"/dashboard/settings/api-keys/").append(escape(k.id())).append("/usage\">Usage</a> ");
            if (!k.isRevoked()) {
                b.append(form("/dashboard/settings/api-keys/" + k.id() + "/rotate", s,
                                "<select name=\"grace_hours\" title=\"keep the old secret valid for\"><option value=\"0\">old secret ends now</option>"
                                        + "<option value=\"1\">old secret valid 1 h</option><option value=\"24\" selected>old secret valid 24 h</option>"
                                        + "<option value=\"168\">old secret valid 7 days</option></select>", "Rotate", "rotate"))
                        .append(form("/dashboard/settings/api-keys/" + k.id() + "/revoke", s, "", "Revoke", "revoke"));
            }
            b.append("</td></tr>");
        }
        b.append("</table></section>");
        b.append("<section><h2>Create a key</h2><form method=\"post\" action=\"/dashboard/settings/api-keys\" id=\"create\">")
                .append(csrf(s))
                .append("<label>Name <input name=\"name\" id=\"key-name\" required maxlength=\"200\"></label>")
                .append("<label>Models <input name=\"models\" placeholder=\"all\" title=\"comma-separated model ids; empty: all\"></label>")
                .append("<label>Endpoints <input name=\"endpoints\" placeholder=\"all\" title=\"chat.completions, completions, models, audio.transcriptions\"></label>")
                .append("<label>Expires <input type=\"date\" name=\"expires\" id=\"expires\" min=\"1970-01-01\" max=\"9999-12-31\"")
                .append(" title=\"the key works through this whole day, UTC\"></label>")
                .append("<label>Requests/s <input type=\"number\" min=\"1\" max=\"").append(InputRules.MAX_RATE_LIMIT)
                .append("\" name=\"rate_limit\" placeholder=\"default\" style=\"width:7em\"></label>")
                .append("<button type=\"submit\" id=\"create-key\">Create key</button></form>")
                .append("<p class=\"muted\">A key with an expiry date works through that whole day (UTC); a date already past is refused.</p></section>");
        b.append("<section><h2>Audit log</h2><p><a href=\"/dashboard/settings/usage.csv\">Export all usage (CSV)</a></p>")
                .append("<table id=\"audit\"><tr><th>When</th><th>Who</th><th>What</th><th>Key</th><th>Details</th><th>From</th></tr>");
        for (AuditEntry e : audit) {
            b.append("<tr><td>").append(time(e.at())).append("</td><td>").append(escape(e.actor())).append("</td><td>")
                    .append(escape(e.action())).append("</td><td>").append(escape(e.target())).append("</td><td>")
                    .append(escape(e.detail())).append("</td><td>").append(escape(e.source())).append("</td></tr>");
        }
        b.append("</table></section>");
        String script = issued == null ? null : """
                document.getElementById('copy').addEventListener('click', () => {
                  navigator.clipboard.writeText(document.getElementById('secret').textContent)
                    .then(() => document.getElementById('copied').textContent = 'Copied.');
                });""";
        return page("API Keys", s, b.toString(), script == null ? null : new String[]{nonce, script});
    }

    static Page keyUsage(UserStore.Session s, ApiKey key, UsageReport totals, List<UsageReport.Day> days,
                         List<UsageRecord> recent) {
        var b = new StringBuilder();
        b.append("<h1>Usage of ").append(escape(key.name())).append(" <code>").append(escape(key.prefix())).append("...</code></h1>");
        b.append("<section><table id=\"totals\"><tr><th>Requests</th><th>Prompt tokens</th><th>Completion tokens</th>")
                .append("<th>Cached tokens</th><th>Audio seconds</th><th>Cost (USD)</th></tr><tr><td class=\"requests\">")
                .append(totals.requests()).append("</td><td class=\"prompt\">").append(totals.promptTokens())
                .append("</td><td class=\"completion\">").append(totals.completionTokens()).append("</td><td>")
                .append(totals.cachedTokens()).append("</td><td>").append(totals.audioSeconds().toPlainString())
                .append("</td><td class=\"cost\">").append(escape(totals.costUsd())).append("</td></tr></table>")
                .append("<p><a href=\"/dashboard/settings/api-keys/").append(escape(key.id())).append("/usage.csv\">Export (CSV)</a> · ")
                .append("<a href=\"/dashboard/usage?key=").append(escape(key.id())).append("\">Tokens, audio and cost per day</a> · ")
                .append("<a href=\"/dashboard/settings/api-keys\">Back to API keys</a></p></section>");
        b.append("<section><h2>Requests per day</h2>").append(chart(days)).append("</section>");
        b.append("<section><h2>Latest requests</h2><table id=\"recent\"><tr><th>When</th><th>Model</th><th>Endpoint</th>")
                .append("<th>Status</th><th>Prompt</th><th>Completion</th><th>Audio s</th><th>Latency ms</th><th>Cost</th></tr>");
        for (UsageRecord r : recent) {
            b.append("<tr><td>").append(time(r.at())).append("</td><td>").append(escape(r.model())).append("</td><td>")
                    .append(escape(r.endpoint())).append("</td><td>").append(r.status()).append("</td><td>").append(r.promptTokens())
                    .append("</td><td>").append(r.completionTokens()).append("</td><td>")
                    .append(BigDecimal.valueOf(r.audioMillis(), 3).toPlainString()).append("</td><td>").append(r.latencyMillis())
                    .append("</td><td>").append(r.costUsd().toPlainString()).append("</td></tr>");
        }
        b.append("</table></section>");
        return page("Usage", s, b.toString(), null);
    }

    /** Bars of requests per day, drawn as inline SVG: no script and nothing fetched. */
    static String chart(List<UsageReport.Day> days) {
        if (days.isEmpty()) return "<p class=\"muted\" id=\"chart-empty\">No requests yet.</p>";
        int width = 760;
        int height = 180;
        long max = days.stream().mapToLong(d -> d.totals().requests()).max().orElse(1);
        int slot = Math.max(8, Math.min(60, (width - 40) / days.size()));
        var svg = new StringBuilder("<svg id=\"chart\" role=\"img\" aria-label=\"requests per day\" width=\"" + width
                + "\" height=\"" + (height + 40) + "\" xmlns=\"http://www.w3.org/2000/svg\">");
        for (int i = 0; i < days.size(); i++) {
            var d = days.get(i);
            int h = (int) Math.max(1, Math.round((double) d.totals().requests() / max * height));
            int x = 20 + i * slot;
            svg.append("<rect class=\"bar\" x=\"").append(x).append("\" y=\"").append(height - h + 10).append("\" width=\"")
                    .append(slot - 4).append("\" height=\"").append(h).append("\" fill=\"#4a6cf7\"><title>")
                    .append(escape(d.date())).append(": ").append(d.totals().requests()).append(" requests, $")
                    .append(escape(d.totals().costUsd())).append("</title></rect>")
                    .append("<text x=\"").append(x).append("\" y=\"").append(height + 30).append("\" font-size=\"10\">")
                    .append(escape(d.date().substring(5))).append("</text>");
        }
        return svg.append("</svg>").toString();
    }

    private static String form(String action, UserStore.Session s, String fields, String label, String cssClass) {
        return "<form class=\"inline " + cssClass + "\" method=\"post\" action=\"" + escape(action) + "\">" + csrf(s) + fields
                + "<button type=\"submit\">" + label + "</button></form> ";
    }

    private static String csrf(UserStore.Session s) {
        return "<input type=\"hidden\" name=\"csrf\" value=\"" + escape(s.csrfToken()) + "\">";
    }

    /**
     * A key's end: "through 2027-01-31" when it ends at a UTC midnight (as a date typed in the form makes it), the
     * exact instant otherwise; the instant is in the tooltip either way.
     */
    private static String expiry(Long millis) {
        if (millis == null || millis % 86_400_000L != 0) return time(millis);
        String last = java.time.LocalDate.ofInstant(Instant.ofEpochMilli(millis - 1), java.time.ZoneOffset.UTC).toString();
        return "<span title=\"until " + escape(Instant.ofEpochMilli(millis).toString()) + "\">through " + last + " (UTC)</span>";
    }

    private static String time(Long millis) {
        return millis == null ? "<span class=\"muted\">-</span>" : escape(Instant.ofEpochMilli(millis).toString().replace('T', ' '));
    }

    /** @param script null, or the nonce and the text of one inline script */
    static Page page(String title, UserStore.Session s, String body, String[] script) {
        String nonce = script == null ? Secrets.randomToken() : script[0];
        var b = new StringBuilder("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(escape(title)).append(" · inferd</title><style>").append(STYLE).append("</style></head><body><header><b>inferd</b>");
        if (s != null) {
            b.append("<a href=\"/dashboard/settings/api-keys\">Settings &gt; API Keys</a>")
                    .append("<a href=\"/dashboard/usage\" id=\"nav-usage\">Usage</a><span class=\"muted\" id=\"who\">")
                    .append(escape(s.user().email())).append("</span><form class=\"inline\" method=\"post\" action=\"/dashboard/logout\">")
                    .append(csrf(s)).append("<button type=\"submit\" id=\"sign-out\">Sign out</button></form>");
        }
        b.append("</header><main>").append(body).append("</main>");
        if (script != null) b.append("<script nonce=\"").append(nonce).append("\">").append(script[1]).append("</script>");
        return new Page(b.append("</body></html>").toString(), nonce);
    }
}
