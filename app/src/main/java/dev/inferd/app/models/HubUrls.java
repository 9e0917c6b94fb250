package dev.inferd.app.models;

import java.net.URI;
import java.nio.charset.StandardCharsets;

/** The Hugging Face download URL layout, which compatible mirrors share. */
final class HubUrls {
    private HubUrls() {
    }

    /** {@code <endpoint>/<hf_repo>/resolve/<revision>/<file>}, each path segment percent-encoded. */
    static URI resolve(URI endpoint, CatalogEntry entry) {
        return URI.create(endpoint + "/" + encodePath(entry.hfRepo()) + "/resolve/"
                + encodeSegment(entry.revision()) + "/" + encodePath(entry.file()));
    }

    /** The page a person opens to accept a gated model's licence. */
    static String repoPage(URI endpoint, CatalogEntry entry) {
        return endpoint + "/" + entry.hfRepo();
    }

    private static String encodePath(String path) {
        var sb = new StringBuilder();
        for (String segment : path.split("/", -1)) {
            if (!sb.isEmpty()) {
                sb.append('/');
            }
            sb.append(encodeSegment(segment));
        }
        return sb.toString();
    }

    private static String encodeSegment(String segment) {
        var sb = new StringBuilder();
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-._~".indexOf(c) >= 0) {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }
}
