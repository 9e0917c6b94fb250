package dev.inferd.server.cloud;

import dev.inferd.engine.FuzzBudget;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin API's and the dashboard's inputs, random and at their boundaries: whatever comes in, the answer is
 * never a 5xx, a refusal carries no stack trace and no SQL, and a refused change changes nothing. On SQLite
 * ({@link PostgresHostedInputFuzzTest}: the same on PostgreSQL, whose column types refuse what SQLite would store).
 * The tries are a short budget in {@code ./test}; {@code -Dinferd.fuzz.factor=N} multiplies them ({@link FuzzBudget}).
 */
@AddLifecycleHook(FuzzBudget.class)
class HostedInputFuzzTest {

    private static final String OPERATOR = "operator-token-for-fuzzing-0123456789";
    private static final String PASSWORD = "correct horse battery";
    private static final Map<String, Target> TARGETS = new ConcurrentHashMap<>();
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** The kind of database; a subclass runs the same on PostgreSQL. */
    String kind() {
        return TestDatabases.SQLITE;
    }

    /** One deployment per kind of database, with account "alpha", its key, and a signed-in dashboard session. */
    record Target(Database db, CloudDeployment cloud, String accountId, String keyId, DashboardSession dashboard) {

        static Target start(String kind) {
            try {
                Database db = TestDatabases.open(kind);
                var registry = new ModelRegistry();
                registry.ready("m", new EchoModel("m"));
                var cloud = CloudDeployment.start("127.0.0.1", 0, db, new CloudConfig(null, null, OPERATOR, Map.of()),
                        registry, Clock.systemUTC());
                var actor = new Actor("test", "junit");
                var alpha = cloud.accounts().createAccount("alpha", actor);
                cloud.accounts().addUser(alpha.id(), "ana@alpha.example", PASSWORD, actor);
                String keyId = cloud.accounts().createKey(alpha.id(), KeySpec.named("fuzzed"), actor).key().id();
                var session = DashboardSession.signIn(HttpClient.newHttpClient(), "http://127.0.0.1:" + cloud.port(),
                        "ana@alpha.example", PASSWORD);
                return new Target(db, cloud, alpha.id(), keyId, session);
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the deployment to fuzz", e);
            }
        }

        HttpClient http() {
            return dashboard.http();
        }

        String url(String path) {
            return "http://127.0.0.1:" + cloud.port() + path;
        }

        HttpResponse<String> admin(String method, String path, String json) {
            var request = HttpRequest.newBuilder(URI.create(url(path))).header("Authorization", "Bearer " + OPERATOR);
            request.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
            if (json != null) request.header("Content-Type", "application/json");
            HttpRequest built = request.build();
            try {
                return http().send(built, HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new IllegalStateException(built.method() + " " + built.uri() + " got no answer", e);
            }
        }

        HttpResponse<String> dashboardPost(String path, Map<String, String> fields) {
            return dashboard.post(path, fields);
        }

        HttpResponse<String> dashboardGet(String pathAndQuery) {
            return dashboard.get(pathAndQuery);
        }

        int keyCount() {
            return cloud.accounts().listKeys(accountId).size();
        }

        void close() {
            cloud.close();
            db.close();
        }
    }

    private Target target() {
        return TARGETS.computeIfAbsent(kind(), Target::start);
    }

    @AfterContainer
    static void stop() {
        TARGETS.values().forEach(Target::close);
        TARGETS.clear();
    }

    // ---- the admin API

    @Property(tries = 80)
    void adminKeyCreationIsDoneOrRefusedWithA4xx(@ForAll("keyBodies") String body) {
        Target t = target();
        int before = t.keyCount();
        var response = t.admin("POST", "/admin/v1/accounts/alpha/keys", body);
        assertClean(response);
        assertThat(t.keyCount()).as(body).isEqualTo(response.statusCode() == 201 ? before + 1 : before);
    }

    @Property(tries = 40)
    void adminAccountCreationIsDoneOrRefusedWithA4xx(@ForAll("accountBodies") String body) {
        Target t = target();
        int before = t.cloud().accounts().listAccounts().size();
        var response = t.admin("POST", "/admin/v1/accounts", body);
        assertClean(response);
        assertThat(t.cloud().accounts().listAccounts()).as(body).hasSize(response.statusCode() == 201 ? before + 1 : before);
    }

    @Property(tries = 25)
    void adminUserCreationIsDoneOrRefusedWithA4xx(@ForAll("userBodies") String body) {
        assertClean(target().admin("POST", "/admin/v1/accounts/alpha/users", body));
    }

    @Property(tries = 40)
    void adminRotationIsDoneOrRefusedWithA4xx(@ForAll("numbers") String grace) {
        Target t = target();
        assertClean(t.admin("POST", "/admin/v1/accounts/alpha/keys/" + t.keyId() + "/rotate", "{\"grace_seconds\": " + grace + "}"));
    }

    @Property(tries = 60)
    void adminUsageQueriesAnswerOrRefuseWithA4xx(@ForAll("texts") String from, @ForAll("texts") String to,
                                                 @ForAll("texts") String key, @ForAll("texts") String model) {
        assertClean(target().admin("GET", "/admin/v1/accounts/alpha/usage?" + form(Map.of("from", from, "to", to,
                "key", key, "model", model)), null));
    }

    @Property(tries = 40)
    void adminPathsWithAnyAccountOrKeyAnswerOrRefuseWithA4xx(@ForAll("texts") String account, @ForAll("texts") String key) {
        Target t = target();
        assertClean(t.admin("GET", "/admin/v1/accounts/" + segment(account) + "/keys", null));
        assertClean(t.admin("POST", "/admin/v1/accounts/alpha/keys/" + segment(key) + "/revoke", null));
        assertClean(t.admin("GET", "/admin/v1/accounts/" + segment(account) + "/usage", null));
    }

    // ---- the dashboard's forms

    @Property(tries = 80)
    void dashboardKeyFormIsDoneOrRefusedWithA4xx(@ForAll("texts") String name, @ForAll("texts") String models,
                                                 @ForAll("texts") String endpoints, @ForAll("dates") String expires,
                                                 @ForAll("numbers") String rateLimit) {
        Target t = target();
        int before = t.keyCount();
        var response = t.dashboardPost("/dashboard/settings/api-keys", Map.of("name", name, "models", models,
                "endpoints", endpoints, "expires", expires, "rate_limit", rateLimit));
        assertClean(response);
        assertThat(t.keyCount()).isEqualTo(response.statusCode() == 200 ? before + 1 : before);
    }

    @Property(tries = 40)
    void dashboardRotationIsDoneOrRefusedWithA4xx(@ForAll("numbers") String graceHours) {
        Target t = target();
        assertClean(t.dashboardPost("/dashboard/settings/api-keys/" + t.keyId() + "/rotate", Map.of("grace_hours", graceHours)));
    }

    @Property(tries = 60)
    void dashboardUsageRangesAnswerOrRefuseWithA4xx(@ForAll("dates") String from, @ForAll("dates") String to,
                                                    @ForAll("texts") String key) {
        assertClean(target().dashboardGet("/dashboard/usage?" + form(Map.of("from", from, "to", to, "key", key))));
    }

    @Property(tries = 30)
    void dashboardKeyPathsAnswerOrRefuseWithA4xx(@ForAll("texts") String key) {
        Target t = target();
        assertClean(t.dashboardGet("/dashboard/settings/api-keys/" + segment(key) + "/usage"));
        assertClean(t.dashboardPost("/dashboard/settings/api-keys/" + segment(key) + "/revoke", Map.of()));
    }

    // ---- the cases once seen as 500s, each with its message

    @Example
    void theKnownCasesAreClearRefusals() {
        Target t = target();
        int keys = t.keyCount();
        assertRefused(t.dashboardPost("/dashboard/settings/api-keys", Map.of("name", "x", "expires", "garbage")), "an expiry is a date (2027-01-31)");
        assertRefused(t.dashboardPost("/dashboard/settings/api-keys", Map.of("name", "x", "expires", "2027-02-30")), "not a date");
        assertRefused(t.dashboardPost("/dashboard/settings/api-keys/" + t.keyId() + "/rotate",
                Map.of("grace_hours", "99999999999999")), "a grace period is a whole number from 0 to 8760 hours");
        assertRefused(t.dashboardPost("/dashboard/settings/api-keys", Map.of("name", "x", "rate_limit", "0")),
                "a rate limit is a whole number from 1 to 100000");
        assertRefused(t.admin("POST", "/admin/v1/accounts/alpha/keys/" + t.keyId() + "/rotate",
                "{\"grace_seconds\": 9223372036854775807}"), "grace_seconds is a whole number from 0 to 31536000");
        assertRefused(t.admin("POST", "/admin/v1/accounts/alpha/users",
                "{\"email\": \"" + "a".repeat(398) + "@example.com\", \"password\": \"long-enough-password\"}"),
                "an e-mail address may have at most 254 characters");
        assertRefused(t.admin("POST", "/admin/v1/accounts", "{\"name\": \"zero\", \"rate_limit_rps\": 0}"),
                "rate_limit_rps is a whole number from 1 to 100000");
        assertThat(t.cloud().accounts().account("zero")).isEmpty();
        String yesterday = LocalDate.now(ZoneOffset.UTC).minusDays(1).toString();
        assertRefused(t.admin("POST", "/admin/v1/accounts/alpha/keys", "{\"name\": \"old\", \"expires_at\": \"" + yesterday + "\"}"),
                "already past");
        assertRefused(t.dashboardPost("/dashboard/settings/api-keys", Map.of("name", "old", "expires", yesterday)), "already past");
        assertRefused(t.admin("POST", "/admin/v1/accounts/alpha/keys", "{\"name\": \"nul\\u0000\"}"), "control characters");
        assertRefused(t.dashboardGet("/dashboard/usage?from=2026-01-01&to=2025-01-01"), "before it starts");
        assertRefused(t.dashboardGet("/dashboard/usage?from=2020-01-01&to=2025-01-01"), "at most 366 days");
        assertThat(t.keyCount()).isEqualTo(keys);
    }

    @Example
    void anExpiryDateMeansTheSameInTheDashboardAndTheAdminApi() {
        Target t = target();
        String today = LocalDate.now(ZoneOffset.UTC).toString();
        long endOfToday = LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        String run = Long.toString(System.nanoTime(), 36); // examples run once per fuzz factor
        assertThat(t.admin("POST", "/admin/v1/accounts/alpha/keys", "{\"name\": \"admin-" + run + "\", \"expires_at\": \"" + today + "\"}")
                .statusCode()).isEqualTo(201);
        assertThat(t.dashboardPost("/dashboard/settings/api-keys", Map.of("name", "dashboard-" + run, "expires", today))
                .statusCode()).isEqualTo(200);
        assertThat(t.cloud().accounts().listKeys(t.accountId())).filteredOn(k -> k.name().endsWith("-" + run))
                .extracting(k -> k.expiresAt()).containsExactly(endOfToday, endOfToday);
        assertThat(t.dashboardGet("/dashboard/settings/api-keys").body()).contains("through " + today + " (UTC)");
    }

    @Example
    void aSignInWithAnyEmailIsAnsweredWithoutA5xx() throws Exception {
        Target t = target();
        for (String email : List.of("a\u0000@b", "\ud800@x", "a".repeat(5000) + "@x", "")) {
            var login = t.http().send(HttpRequest.newBuilder(URI.create(t.url("/dashboard/login"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            String token = DashboardSession.cookie(login, "inferd_login");
            var response = t.http().send(HttpRequest.newBuilder(URI.create(t.url("/dashboard/login")))
                    .header("Cookie", "inferd_login=" + token).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(form(Map.of("csrf", token, "email", email, "password", "whatever-it-is"))))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertClean(response);
            assertThat(response.statusCode()).isIn(401, 429); // 429 once the address has tried too often
        }
    }

    // ---- checks

    private static void assertClean(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.request().uri() + " answered " + response.body()).isLessThan(500);
        String body = response.body();
        assertThat(body).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("SELECT ")
                .doesNotContain("INSERT ").doesNotContain("UPDATE ").doesNotContain("ERROR:");
    }

    private static void assertRefused(HttpResponse<String> response, String message) {
        assertClean(response);
        assertThat(response.statusCode()).as(response.body()).isBetween(400, 499);
        assertThat(response.body().replace("&#39;", "'")).contains(message);
    }

    // ---- values

    /** Boundaries and known troublemakers, as text. */
    private static final List<String> EDGES = List.of("", " ", "0", "-0", "1", "-1", "100000", "100001", "8760", "8761",
            "31536000", "31536001", "2147483647", "2147483648", "-2147483648", "9223372036854775807",
            "9223372036854775808", "-9223372036854775808", "99999999999999", "99999999999999999999", "1e400", "1.5",
            "NaN", "Infinity", "garbage", "2027-02-30", "2027-02-28", "2026-13-01", "1969-12-31", "1970-01-01",
            "9999-12-31", "10000-01-01", "+999999999-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z",
            "2027-01-01T00:00:00Z", "2027-01-01T25:00:00Z", "2027-01-01T00:00:00+02:00", "PT24H", "P7D",
            "PT2562047788015215H", "\u0000", "a\u0000b", "\ud800", "\udc00x", "%", "%zz", "é", "😀", "'; DROP TABLE accounts; --",
            "<script>alert(1)</script>", "a".repeat(201), "b".repeat(255), "c".repeat(5000), "x@y", "@", "a@b@c",
            "a".repeat(400) + "@example.com", "chat.completions", "models", "m", "*", "alpha");

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(Arbitraries.of(EDGES), Arbitraries.strings().ofMaxLength(40),
                Arbitraries.strings().withCharRange('\u0000', '\u001f').ofMaxLength(4));
    }

    @Provide
    Arbitrary<String> numbers() {
        return Arbitraries.oneOf(Arbitraries.of(EDGES), Arbitraries.longs().map(String::valueOf),
                Arbitraries.integers().between(-10, 10_000).map(String::valueOf));
    }

    @Provide
    Arbitrary<String> dates() {
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        return Arbitraries.oneOf(Arbitraries.of(EDGES),
                Arbitraries.of(today.toString(), today.minusDays(1).toString(), today.plusDays(1).toString(),
                        today.plusYears(100).toString(), today.plusYears(101).toString()),
                Arbitraries.integers().between(-400_000, 400_000).map(d -> today.plusDays(d).toString()),
                Arbitraries.longs().map(String::valueOf));
    }

    /** A JSON value: a string of {@link #texts()}, a number at a boundary, or another type altogether. */
    private Arbitrary<String> jsonValue() {
        return Arbitraries.oneOf(texts().map(HostedInputFuzzTest::quote), numbers().filter(n -> n.matches("-?[0-9]+(\\.[0-9]+)?(e[0-9]+)?")),
                Arbitraries.of("null", "true", "false", "[]", "{}", "[\"m\"]", "[1]", "[null]", "[\"\\u0000\"]",
                        "123456789012345678901234567890", "-0", "1.0", "1e400"));
    }

    private Arbitrary<String> object(List<String> fields) {
        Arbitrary<Map<String, String>> entries = Arbitraries.maps(Arbitraries.of(fields), jsonValue()).ofMaxSize(fields.size());
        return entries.map(m -> {
            List<String> parts = new ArrayList<>();
            m.forEach((k, v) -> parts.add(quote(k) + ":" + v));
            return "{" + String.join(",", parts) + "}";
        });
    }

    @Provide
    Arbitrary<String> keyBodies() {
        return Arbitraries.oneOf(object(List.of("name", "models", "endpoints", "expires_at", "rate_limit_rps")),
                Arbitraries.of("", "[]", "null", "\"x\"", "{", "{\"name\": \"ok\"}"));
    }

    @Provide
    Arbitrary<String> accountBodies() {
        return object(List.of("name", "rate_limit_rps"));
    }

    @Provide
    Arbitrary<String> userBodies() {
        Arbitrary<String> email = Arbitraries.oneOf(texts(), Combinators.combine(Arbitraries.strings().alpha().ofMinLength(1)
                .ofMaxLength(300), Arbitraries.of("@example.com", "@x")).as(String::concat));
        return Combinators.combine(email, Arbitraries.of("short", "long-enough-password", "\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000",
                        "p".repeat(73)))
                .as((e, p) -> "{\"email\":" + quote(e) + ",\"password\":" + quote(p) + "}");
    }

    private static String quote(String s) {
        var out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20 || Character.isSurrogate(c)) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }

    private static String form(Map<String, String> fields) {
        return DashboardSession.form(fields);
    }

    private static String segment(String s) {
        String encoded = URLEncoder.encode(s, UTF_8).replace("+", "%20");
        return encoded.isEmpty() ? "%20" : encoded;
    }
}
