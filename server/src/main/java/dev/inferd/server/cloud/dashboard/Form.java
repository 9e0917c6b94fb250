package dev.inferd.server.cloud.dashboard;

import dev.inferd.server.http.ServerRequest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** An {@code application/x-www-form-urlencoded} body. */
record Form(Map<String, String> fields) {

    static final Form EMPTY = new Form(Map.of());
    private static final int MAX_BYTES = 64 * 1024;

    static Form read(ServerRequest request) {
        if (!request.hasBody()) return new Form(Map.of());
        byte[] body;
        try (InputStream in = request.body()) {
            body = in.readNBytes(MAX_BYTES + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (body.length > MAX_BYTES) throw new IllegalArgumentException("the form is too large");
        Map<String, String> fields = new HashMap<>();
        for (String pair : new String(body, StandardCharsets.US_ASCII).split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            try {
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                fields.putIfAbsent(name, value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("the form is not URL-encoded (a '%' not followed by two hex digits)");
            }
        }
        return new Form(Map.copyOf(fields));
    }

    String get(String name) {
        String value = fields.get(name);
        return value == null ? "" : value.strip();
    }

    /** A comma- or space-separated list; empty when blank. */
    List<String> list(String name) {
        List<String> out = new ArrayList<>();
        Arrays.stream(get(name).split("[,\\s]+")).filter(s -> !s.isBlank()).forEach(out::add);
        return out;
    }
}
