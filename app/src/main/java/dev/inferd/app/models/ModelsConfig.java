package dev.inferd.app.models;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where models live and where they come from, read from the environment:
 * <ul>
 *   <li>{@code INFERD_HOME} (default {@code ~/.inferd}): models go to {@code $INFERD_HOME/models},
 *       the user's own catalog entries are read from {@code $INFERD_HOME/catalog.json}, and the copies
 *       of models' weights laid out for generated tokens are cached in {@code $INFERD_HOME/copies};</li>
 *   <li>{@code INFERD_HF_ENDPOINT} (default {@code https://huggingface.co}): any mirror that
 *       answers {@code <endpoint>/<repo>/resolve/<revision>/<file>};</li>
 *   <li>{@code HF_TOKEN}: sent as {@code Authorization: Bearer} for gated or private repositories.</li>
 * </ul>
 */
public record ModelsConfig(Path home, URI endpoint, Optional<String> hfToken) {
    public static final URI DEFAULT_ENDPOINT = URI.create("https://huggingface.co");

    public ModelsConfig {
        home = home.toAbsolutePath().normalize();
        String e = endpoint.toString();
        if (!"http".equals(endpoint.getScheme()) && !"https".equals(endpoint.getScheme()) || endpoint.getHost() == null) {
            throw new ModelException("INFERD_HF_ENDPOINT must be an http(s) URL such as " + DEFAULT_ENDPOINT + ", got '" + e + "'");
        }
        // A trailing slash would double up when the repository path is appended.
        endpoint = URI.create(e.replaceAll("/+$", ""));
    }

    /** The configuration from {@code env} (pass {@code System::getenv}, or a map's {@code get} in tests). */
    public static ModelsConfig fromEnvironment(Function<String, String> env) {
        String home = nonBlank(env.apply("INFERD_HOME"));
        String endpoint = nonBlank(env.apply("INFERD_HF_ENDPOINT"));
        URI uri;
        try {
            uri = endpoint == null ? DEFAULT_ENDPOINT : URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new ModelException("INFERD_HF_ENDPOINT is not a URL: '" + endpoint + "'", e);
        }
        return new ModelsConfig(
                home == null ? Path.of(System.getProperty("user.home"), ".inferd") : Path.of(home),
                uri,
                Optional.ofNullable(nonBlank(env.apply("HF_TOKEN"))));
    }

    public Path modelsDir() {
        return home.resolve("models");
    }

    /** Where the engine caches the copies of weights it lays out for generated tokens, one file per model file. */
    public Path copiesDir() {
        return home.resolve("copies");
    }

    public Path userCatalog() {
        return home.resolve("catalog.json");
    }

    private static String nonBlank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
