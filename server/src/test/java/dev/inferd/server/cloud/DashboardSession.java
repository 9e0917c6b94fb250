package dev.inferd.server.cloud;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A dashboard user signed in over plain HTTP, as a browser would be: the login form's own token and cookie, then the
 * session cookie and the CSRF token its pages' forms carry. For tests that read the dashboard's HTML.
 */
record DashboardSession(HttpClient http, String baseUrl, String session, String csrf) {

    static DashboardSession signIn(HttpClient http, String baseUrl, String email, String password) throws Exception {
        var login = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/dashboard/login")).build(),
                HttpResponse.BodyHandlers.ofString());
        String loginToken = cookie(login, "inferd_login");
        var signedIn = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/dashboard/login"))
                .header("Cookie", "inferd_login=" + loginToken)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(Map.of("csrf", loginToken, "email", email,
                        "password", password)))).build(), HttpResponse.BodyHandlers.ofString());
        String session = cookie(signedIn, "inferd_session");
        var keysPage = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/dashboard/settings/api-keys"))
                .header("Cookie", "inferd_session=" + session).build(), HttpResponse.BodyHandlers.ofString());
        Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(keysPage.body());
        if (!csrf.find()) throw new IllegalStateException("no CSRF token in " + keysPage.body());
        return new DashboardSession(http, baseUrl, session, csrf.group(1));
    }

    HttpResponse<String> get(String pathAndQuery) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery)).header("Cookie", "inferd_session=" + session));
    }

    /** Posts a form with the session's CSRF token added. */
    HttpResponse<String> post(String path, Map<String, String> fields) {
        Map<String, String> all = new LinkedHashMap<>(fields);
        all.put("csrf", csrf);
        return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).header("Cookie", "inferd_session=" + session)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(all))));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        HttpRequest built = request.build();
        try {
            return http.send(built, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(built.method() + " " + built.uri() + " got no answer", e);
        }
    }

    /** An {@code application/x-www-form-urlencoded} body, or a query string. */
    static String form(Map<String, String> fields) {
        List<String> parts = new ArrayList<>();
        fields.forEach((k, v) -> parts.add(URLEncoder.encode(k, UTF_8) + "=" + URLEncoder.encode(v, UTF_8)));
        return String.join("&", parts);
    }

    static String cookie(HttpResponse<?> response, String name) {
        for (String header : response.headers().allValues("Set-Cookie")) {
            if (header.startsWith(name + "=")) return header.substring(name.length() + 1, header.indexOf(';'));
        }
        throw new IllegalStateException("no cookie " + name + " in " + response.headers().map());
    }
}
