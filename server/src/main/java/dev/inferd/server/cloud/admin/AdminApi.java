package dev.inferd.server.cloud.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.cloud.CloudHttp;
import dev.inferd.server.cloud.CloudRoute;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.InputRules;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.auth.OperatorToken;
import dev.inferd.server.cloud.catalog.CatalogAdmin;
import dev.inferd.server.cloud.usage.UsageCsv;
import dev.inferd.server.cloud.usage.UsageReport;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.ApiKey;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageStore;
import dev.inferd.server.http.ServerRequest;
import dev.inferd.server.http.ServerResponse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The operator's REST API under {@code /admin/v1/}, behind {@code Authorization: Bearer <operator token>}:
 *
 * <pre>
 * GET  /admin/v1/accounts                          POST /admin/v1/accounts {"name", "rate_limit_rps"}
 * POST /admin/v1/accounts/{account}/users          {"email", "password"}
 * GET  /admin/v1/accounts/{account}/keys           POST /admin/v1/accounts/{account}/keys {"name", "models", "endpoints", "expires_at", "rate_limit_rps"}
 * POST /admin/v1/accounts/{account}/keys/{key}/rotate {"grace_seconds"}   (0 to 31536000, a year)
 * POST /admin/v1/accounts/{account}/keys/{key}/revoke
 * GET  /admin/v1/accounts/{account}/usage?key=&amp;model=&amp;from=&amp;to=&amp;format=csv
 * GET  /admin/v1/accounts/{account}/audit
 * GET  /admin/v1/models                            POST /admin/v1/models {"id", "file", "owned_by"}
 * DELETE /admin/v1/models/{id}                     POST /admin/v1/reload
 * </pre>
 *
 * {account} is an account's name or id. Without a configured operator token every call is a 403.
 */
public final class AdminApi implements CloudRoute {

    private static final System.Logger LOG = System.getLogger(AdminApi.class.getName());
    private static final String PREFIX = "/admin/v1/";
    private static final int MAX_BODY = 64 * 1024;

    private final Accounts accounts;
    private final UsageStore usage;
    private final OperatorToken operatorToken;
    private final CatalogAdmin models;

    /** @param operatorToken null to turn the API off */
    public AdminApi(Database db, Accounts accounts, String operatorToken) {
        this(db, accounts, operatorToken, null);
    }

    /**
     * @param operatorToken null to turn the API off
     * @param models the model catalog's administration, or null when the deployment has no catalog
     */
    public AdminApi(Database db, Accounts accounts, String operatorToken, CatalogAdmin models) {
        this.models = models;
        this.accounts = accounts;
        this.usage = new UsageStore(db);
        this.operatorToken = new OperatorToken(operatorToken);
    }

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        try {
            authorize(request);
            route(request, response);
        } catch (ApiError e) {
            CloudHttp.sendError(response, e);
        } catch (NoSuchElementException e) {
            CloudHttp.sendError(response, new ApiError(404, ApiError.INVALID_REQUEST, e.getMessage(), null, "not_found"));
        } catch (IllegalArgumentException | IllegalStateException e) {
            CloudHttp.sendError(response, ApiError.invalid(null, e.getMessage()));
        } catch (Exception e) {
            String requestId = request.id();
            LOG.log(System.Logger.Level.ERROR, "admin request " + requestId + " failed", e);
            if (!response.isSent()) CloudHttp.sendError(response, ApiError.internal(requestId));
        }
    }

    private void authorize(ServerRequest request) {
        operatorToken.check(request, "The admin API");
    }

    private void route(ServerRequest request, ServerResponse response) throws Exception {
        String path = request.path();
        String method = request.method();
        if (!path.startsWith(PREFIX)) throw ApiError.unknownUrl(method, path);
        String[] parts = path.substring(PREFIX.length()).split("/");
        Actor actor = new Actor("operator", CloudHttp.clientAddress(request));
        if (models != null && (parts[0].equals("models") || parts[0].equals("reload"))) {
            models(request, response, method, path, parts);
            return;
        }
        if (!parts[0].equals("accounts")) throw ApiError.unknownUrl(method, path);
        if (parts.length == 1) {
            switch (method) {
                case "GET" -> CloudHttp.sendJson(response, 200, Map.of("object", "list", "data", accounts.listAccounts()));
                case "POST" -> {
                    JsonNode body = body(request);
                    Long rps = integer(body, "rate_limit_rps", 1, InputRules.MAX_RATE_LIMIT);
                    CloudHttp.sendJson(response, 201, accounts.createAccount(text(body, "name", true),
                            rps == null ? null : rps.intValue(), actor));
                }
                default -> throw ApiError.methodNotAllowed(method, path, "GET, POST");
            }
            return;
        }
        Account account = accounts.requireAccount(parts[1]);
        String what = parts.length > 2 ? parts[2] : "";
        switch (what) {
            case "keys" -> keys(request, response, method, path, parts, account, actor);
            case "users" -> {
                require(method, path, "POST");
                JsonNode body = body(request);
                var user = accounts.addUser(account.id(), text(body, "email", true), text(body, "password", true), actor);
                CloudHttp.sendJson(response, 201, Map.of("id", user.id(), "email", user.email(), "account_id", account.id()));
            }
            case "usage" -> {
                require(method, path, "GET");
                UsageFilter filter = UsageReport.filter(account.id(), request.query("key"), request.query("model"),
                        request.query("from"), request.query("to"));
                if ("csv".equals(request.query("format"))) {
                    response.status(200);
                    response.header("Content-Type", "text/csv; charset=utf-8");
                    response.header("Content-Disposition", "attachment; filename=\"usage-" + account.name() + ".csv\"");
                    response.send(UsageCsv.of(usage.list(filter, 100_000)).getBytes(StandardCharsets.UTF_8));
                } else {
                    CloudHttp.sendJson(response, 200, Map.of("object", "usage", "account_id", account.id(),
                            "totals", UsageReport.of(usage.totals(filter)), "daily", UsageReport.Day.of(usage.daily(filter))));
                }
            }
            case "audit" -> {
                require(method, path, "GET");
                CloudHttp.sendJson(response, 200, Map.of("object", "list", "data", accounts.audit(account.id(), 500)));
            }
            default -> throw ApiError.unknownUrl(method, path);
        }
    }

    private void models(ServerRequest request, ServerResponse response, String method, String path, String[] parts)
            throws Exception {
        if (parts[0].equals("reload")) {
            require(method, path, "POST");
            CloudHttp.sendJson(response, 200, models.reload());
        } else if (parts.length == 1) {
            switch (method) {
                case "GET" -> CloudHttp.sendJson(response, 200, models.list());
                case "POST" -> CloudHttp.sendJson(response, 201, models.add(body(request)));
                default -> throw ApiError.methodNotAllowed(method, path, "GET, POST");
            }
        } else {
            require(method, path, "DELETE");
            CloudHttp.sendJson(response, 200, models.remove(path.substring((PREFIX + "models/").length())));
        }
    }

    private void keys(ServerRequest request, ServerResponse response, String method, String path, String[] parts,
                      Account account, Actor actor) {
        if (parts.length == 3) {
            switch (method) {
                case "GET" -> CloudHttp.sendJson(response, 200, Map.of("object", "list", "data", accounts.listKeys(account.id())));
                case "POST" -> {
                    var issued = accounts.createKey(account.id(), spec(body(request)), actor);
                    CloudHttp.sendJson(response, 201, Map.of("key", issued.key(), "secret", issued.secret()));
                }
                default -> throw ApiError.methodNotAllowed(method, path, "GET, POST");
            }
            return;
        }
        String keyId = parts[3];
        String action = parts.length > 4 ? parts[4] : "";
        switch (action) {
            case "" -> {
                require(method, path, "GET");
                CloudHttp.sendJson(response, 200, accounts.key(account.id(), keyId));
            }
            case "rotate" -> {
                require(method, path, "POST");
                JsonNode body = body(request);
                Long grace = integer(body, "grace_seconds", 0, InputRules.MAX_GRACE.toSeconds());
                var issued = accounts.rotateKey(account.id(), keyId, Duration.ofSeconds(grace == null ? 0 : grace), actor);
                CloudHttp.sendJson(response, 200, Map.of("key", issued.key(), "secret", issued.secret()));
            }
            case "revoke" -> {
                require(method, path, "POST");
                CloudHttp.sendJson(response, 200, accounts.revokeKey(account.id(), keyId, actor));
            }
            default -> throw ApiError.unknownUrl(method, path);
        }
    }

    /**
     * A key's settings from a JSON body: name, models, endpoints, expires_at (a date, valid through that day in UTC;
     * an ISO-8601 instant; or epoch ms), rate_limit_rps. Each field of the wrong type or out of range is a 400 that
     * names it.
     */
    static KeySpec spec(JsonNode body) {
        JsonNode expires = body.get("expires_at");
        Long expiresAt;
        if (expires == null || expires.isNull()) expiresAt = null;
        else if (expires.isTextual() || expires.isIntegralNumber()) expiresAt = InputRules.expiry(expires.asText());
        else throw ApiError.invalidType("expires_at", "a date, an ISO-8601 instant or epoch milliseconds", type(expires));
        Long rps = integer(body, "rate_limit_rps", 1, InputRules.MAX_RATE_LIMIT);
        return new KeySpec(text(body, "name", true), new KeyScopes(strings(body, "models"), strings(body, "endpoints")),
                expiresAt, rps == null ? null : rps.intValue());
    }

    private static List<String> strings(JsonNode body, String field) {
        JsonNode node = body.path(field);
        if (node.isMissingNode() || node.isNull()) return List.of();
        if (!node.isArray()) throw ApiError.invalidType(field, "an array of strings", type(node));
        List<String> out = new ArrayList<>();
        for (JsonNode n : node) {
            if (!n.isTextual()) throw ApiError.invalidType(field, "an array of strings", "an array holding " + type(n));
            out.add(n.asText());
        }
        return out;
    }

    private static String text(JsonNode body, String field, boolean required) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            if (required) throw ApiError.missing(field);
            return null;
        }
        if (!node.isTextual()) throw ApiError.invalidType(field, "a string", type(node));
        return node.asText();
    }

    /** A whole number within [min, max], or null when absent. */
    private static Long integer(JsonNode body, String field, long min, long max) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) return null;
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < min || node.asLong() > max) {
            throw ApiError.invalid(field, field + " is a whole number from " + min + " to " + max);
        }
        return node.asLong();
    }

    private static String type(JsonNode node) {
        return node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }

    private static JsonNode body(ServerRequest request) {
        if (!request.hasBody()) return WireJson.parse("{}".getBytes(StandardCharsets.UTF_8));
        try (InputStream in = request.body()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) throw ApiError.payloadTooLarge(MAX_BODY);
            JsonNode node = WireJson.parse(bytes);
            if (!node.isObject()) throw ApiError.invalid(null, "The body must be a JSON object.");
            return node;
        } catch (IOException e) {
            throw ApiError.unreadableBody(e.getMessage());
        }
    }

    private static void require(String method, String path, String allowed) {
        if (!allowed.equals(method)) throw ApiError.methodNotAllowed(method, path, allowed);
    }
}
