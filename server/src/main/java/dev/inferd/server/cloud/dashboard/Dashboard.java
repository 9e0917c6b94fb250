package dev.inferd.server.cloud.dashboard;

import dev.inferd.server.cloud.CloudHttp;
import dev.inferd.server.cloud.CloudRoute;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.InputRules;
import dev.inferd.server.cloud.auth.IssuedKey;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.auth.Passwords;
import dev.inferd.server.cloud.auth.Secrets;
import dev.inferd.server.cloud.ratelimit.LocalRateLimiter;
import dev.inferd.server.cloud.ratelimit.RateLimiter;
import dev.inferd.server.cloud.usage.UsageCsv;
import dev.inferd.server.cloud.usage.UsageReport;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageStore;
import dev.inferd.server.store.User;
import dev.inferd.server.store.UserStore;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * The account dashboard at {@code /dashboard}: a user of an account signs in and manages the account's API keys
 * under Settings &gt; API Keys (create with the secret shown once, rotate, revoke, scopes, expiry), reads the audit
 * log, each key's usage with a chart per day, and the account's usage (requests, tokens, audio seconds, cost) per
 * day across its keys or for one, over a chosen range. Pages are rendered here, with no script but the copy
 * button's; charts are SVG drawn on the server.
 *
 * <p>Sessions are random tokens in an HttpOnly, SameSite=Strict cookie scoped to {@code /dashboard}, stored as
 * hashes. Every form that changes something carries the session's CSRF token, checked in constant time; the
 * sign-in form carries one of its own, bound to a cookie (double submit). Sign-in attempts are rate limited per
 * e-mail and, more loosely, per client address.
 */
public final class Dashboard implements CloudRoute {

    static final String SESSION_COOKIE = "inferd_session";
    static final String LOGIN_COOKIE = "inferd_login";
    private static final String BASE = "/dashboard";
    private static final String KEYS = BASE + "/settings/api-keys";
    private static final String USAGE = BASE + "/usage";
    private static final Duration SESSION_LENGTH = Duration.ofHours(12);
    /** The longest range the usage page shows at once, and the one it shows when asked for none. */
    static final int MAX_USAGE_DAYS = 366;
    static final int DEFAULT_USAGE_DAYS = 30;
    /** Sign-in attempts allowed per minute for one e-mail, and from one address (which many users may share). */
    static final int SIGN_INS_PER_MINUTE = 5;
    static final int SIGN_INS_PER_ADDRESS_PER_MINUTE = 20;
    private static final System.Logger LOG = System.getLogger(Dashboard.class.getName());

    private final Accounts accounts;
    private final UserStore users;
    private final UsageStore usage;
    private final Clock clock;
    private final RateLimiter signIns = new LocalRateLimiter(Duration.ofMinutes(1));

    public Dashboard(Database db, Accounts accounts, Clock clock) {
        this.accounts = accounts;
        this.users = new UserStore(db);
        this.usage = new UsageStore(db);
        this.clock = clock;
    }

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        response.header("Cache-Control", "no-store");
        response.header("X-Frame-Options", "DENY");
        response.header("X-Content-Type-Options", "nosniff");
        response.header("Referrer-Policy", "same-origin");
        String path = request.path();
        String method = request.method();
        try {
            if (path.equals(BASE + "/login")) {
                if (method.equals("POST")) signIn(request, response);
                else loginPage(response, null, 200);
                return;
            }
            Optional<UserStore.Session> session = session(request);
            if (session.isEmpty()) {
                redirect(response, BASE + "/login");
                return;
            }
            var s = session.get();
            Form form = method.equals("POST") ? Form.read(request) : Form.EMPTY;
            if (method.equals("POST")) requireCsrf(request, s, form);
            route(method, path, request, response, s, form);
        } catch (Forbidden e) {
            html(response, 403, Pages.message("Forbidden", e.getMessage()));
        } catch (NoSuchElementException e) {
            html(response, 404, Pages.message("Not found", e.getMessage()));
        } catch (IllegalArgumentException | IllegalStateException e) {
            html(response, 400, Pages.message("Not done", e.getMessage()));
        } catch (RuntimeException e) {
            String id = request.id();
            LOG.log(System.Logger.Level.ERROR, "dashboard request " + id + " failed", e);
            if (!response.isSent()) html(response, 500, Pages.message("Error", "Something went wrong (" + id + ")."));
        }
    }

    private void route(String method, String path, ServerRequest request, ServerResponse response, UserStore.Session s,
                       Form form) {
        User user = s.user();
        String accountId = user.accountId();
        Actor actor = new Actor(user.email(), CloudHttp.clientAddress(request));
        switch (method + " " + path) {
            case "GET " + BASE, "GET " + BASE + "/", "GET " + BASE + "/settings" -> redirect(response, KEYS);
            case "POST " + BASE + "/logout" -> {
                users.endSession(Secrets.hash(cookie(request, SESSION_COOKIE).orElseThrow()));
                response.header("Set-Cookie", SESSION_COOKIE + "=; Path=" + BASE + "; Max-Age=0; HttpOnly; SameSite=Strict");
                redirect(response, BASE + "/login");
            }
            case "GET " + KEYS -> keysPage(response, s, null);
            case "POST " + KEYS -> {
                var spec = new KeySpec(form.get("name"), new KeyScopes(form.list("models"), form.list("endpoints")),
                        InputRules.expiry(form.get("expires")), InputRules.rateLimit(form.get("rate_limit")));
                keysPage(response, s, accounts.createKey(accountId, spec, actor));
            }
            case "GET " + BASE + "/settings/usage.csv" -> csv(response, UsageFilter.account(accountId), "usage.csv");
            case "GET " + USAGE -> usagePage(request, response, s);
            default -> keyRoute(method, path, response, s, accountId, actor, form);
        }
    }

    private void keyRoute(String method, String path, ServerResponse response, UserStore.Session s, String accountId,
                          Actor actor, Form form) {
        if (!path.startsWith(KEYS + "/")) throw new NoSuchElementException("No page " + path);
        String[] parts = path.substring(KEYS.length() + 1).split("/");
        String keyId = parts[0];
        String action = parts.length > 1 ? parts[1] : "";
        switch (method + " " + action) {
            case "POST rotate" -> {
                long grace = form.get("grace_hours").isEmpty() ? 0
                        : InputRules.integer("a grace period", form.get("grace_hours"), 0, InputRules.MAX_GRACE.toHours(), "hours");
                keysPage(response, s, accounts.rotateKey(accountId, keyId, Duration.ofHours(grace), actor));
            }
            case "POST revoke" -> {
                accounts.revokeKey(accountId, keyId, actor);
                redirect(response, KEYS);
            }
            case "GET usage" -> {
                var key = accounts.key(accountId, keyId);
                var filter = UsageFilter.account(accountId).key(key.id());
                html(response, 200, Pages.keyUsage(s, key, UsageReport.of(usage.totals(filter)),
                        UsageReport.Day.of(usage.daily(filter)), usage.list(filter, 50)));
            }
            case "GET usage.csv" -> {
                var key = accounts.key(accountId, keyId);
                csv(response, UsageFilter.account(accountId).key(key.id()), "usage-" + key.id() + ".csv");
            }
            default -> throw new NoSuchElementException("No page " + path);
        }
    }

    private void keysPage(ServerResponse response, UserStore.Session s, IssuedKey issued) {
        String accountId = s.user().accountId();
        html(response, 200, Pages.keys(s, accounts.requireAccount(accountId), accounts.listKeys(accountId), issued,
                accounts.audit(accountId, 50), clock.millis()));
    }

    /**
     * The account's usage over {@code from} to {@code to} (dates, both included; the last 30 days by default), across
     * its keys or for the one {@code key} names. Only the signed-in user's account is ever read.
     */
    private void usagePage(ServerRequest request, ServerResponse response, UserStore.Session s) {
        String accountId = s.user().accountId();
        LocalDate today = LocalDate.now(clock.withZone(ZoneOffset.UTC));
        String toText = request.query("to");
        String fromText = request.query("from");
        LocalDate to = blank(toText) ? today : InputRules.date("the range's end", toText);
        LocalDate from = blank(fromText) ? to.minusDays(DEFAULT_USAGE_DAYS - 1) : InputRules.date("the range's start", fromText);
        if (to.isBefore(from)) throw new IllegalArgumentException("the range ends (" + to + ") before it starts (" + from + ")");
        if (from.plusDays(MAX_USAGE_DAYS - 1).isBefore(to)) {
            throw new IllegalArgumentException("a range covers at most " + MAX_USAGE_DAYS + " days");
        }
        String keyId = request.query("key");
        var key = blank(keyId) ? null : accounts.key(accountId, keyId);
        var filter = UsageFilter.account(accountId).key(key == null ? null : key.id()).period(
                from.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli(),
                to.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
        html(response, 200, UsagePage.render(s, accounts.requireAccount(accountId), accounts.listKeys(accountId),
                new UsagePage.Range(from, to, key), usage.dailyPerKey(filter)));
    }

    private static boolean blank(String text) {
        return text == null || text.isBlank();
    }

    private void csv(ServerResponse response, UsageFilter filter, String name) {
        response.status(200);
        response.header("Content-Type", "text/csv; charset=utf-8");
        response.header("Content-Disposition", "attachment; filename=\"" + name + "\"");
        response.send(UsageCsv.of(usage.list(filter, 100_000)).getBytes(StandardCharsets.UTF_8));
    }

    private void loginPage(ServerResponse response, String error, int status) {
        String token = Secrets.randomToken();
        response.header("Set-Cookie", LOGIN_COOKIE + "=" + token + "; Path=" + BASE + "/login; HttpOnly; SameSite=Strict");
        html(response, status, Pages.login(token, error));
    }

    private void signIn(ServerRequest request, ServerResponse response) {
        Form form = Form.read(request);
        String expected = cookie(request, LOGIN_COOKIE).orElse("");
        if (expected.isEmpty() || !constantTimeEquals(expected, form.get("csrf"))) {
            loginPage(response, "The sign-in form expired; please try again.", 403);
            return;
        }
        String email = form.get("email").toLowerCase(java.util.Locale.ROOT);
        String address = CloudHttp.clientAddress(request);
        if (!signIns.tryAcquire("ip:" + address, SIGN_INS_PER_ADDRESS_PER_MINUTE).allowed()
                || !signIns.tryAcquire("email:" + email, SIGN_INS_PER_MINUTE).allowed()) {
            response.header("Retry-After", "60");
            loginPage(response, "Too many sign-in attempts. Please wait a minute and try again.", 429);
            return;
        }
        Optional<User> user = users.byEmail(email);
        if (user.isEmpty() || !Passwords.verify(form.get("password"), user.get().passwordHash())) {
            loginPage(response, "Wrong e-mail or password.", 401);
            return;
        }
        String token = Secrets.randomToken();
        long now = clock.millis();
        users.startSession(Secrets.hash(token), user.get().id(), Secrets.randomToken(), now, now + SESSION_LENGTH.toMillis());
        response.header("Set-Cookie", SESSION_COOKIE + "=" + token + "; Path=" + BASE + "; Max-Age="
                + SESSION_LENGTH.toSeconds() + "; HttpOnly; SameSite=Strict");
        redirect(response, KEYS);
    }

    private Optional<UserStore.Session> session(ServerRequest request) {
        return cookie(request, SESSION_COOKIE).flatMap(token -> users.session(Secrets.hash(token), clock.millis()));
    }

    private static void requireCsrf(ServerRequest request, UserStore.Session session, Form form) {
        if (!constantTimeEquals(session.csrfToken(), form.get("csrf"))) {
            throw new Forbidden("The form is missing its security token or it is out of date; reload the page and try again.");
        }
        String origin = request.header("Origin");
        if (origin != null) {
            String host = java.util.Objects.requireNonNullElse(request.header("Host"), "");
            if (!origin.endsWith("://" + host)) throw new Forbidden("The form was sent from another site.");
        }
    }

    static Optional<String> cookie(ServerRequest request, String name) {
        for (String header : request.headerValues("Cookie")) {
            for (String part : header.split(";")) {
                String p = part.strip();
                if (p.startsWith(name + "=")) return Optional.of(p.substring(name.length() + 1));
            }
        }
        return Optional.empty();
    }

    private static boolean constantTimeEquals(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static void redirect(ServerResponse response, String to) {
        response.status(303);
        response.header("Location", to);
        response.send();
    }

    private static void html(ServerResponse response, int status, Pages.Page page) {
        response.status(status);
        response.header("Content-Type", "text/html; charset=utf-8");
        response.header("Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; "
                        + "base-uri 'none'; script-src 'nonce-" + page.nonce() + "'");
        response.send(page.html().getBytes(StandardCharsets.UTF_8));
    }

    private static final class Forbidden extends RuntimeException {
        Forbidden(String message) {
            super(message, null, false, false);
        }
    }
}
