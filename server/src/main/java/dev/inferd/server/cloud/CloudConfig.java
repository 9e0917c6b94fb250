package dev.inferd.server.cloud;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.ratelimit.RateLimits;
import dev.inferd.server.cloud.usage.Pricing;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hosted deployment's settings, from an optional JSON file ({@code --config}):
 *
 * <pre>{@code
 * {
 *   "database": "jdbc:postgresql://db/inferd?user=inferd&password=...",
 *   "rate_limit_rps": 60,
 *   "operator_token": "a long random string for /admin/v1/",
 *   "prices": { "llama-3.2-1b": { "prompt_per_million": "0.05", "completion_per_million": "0.10" } },
 *   "models": [ { "id": "llama-3.2-1b-instruct" }, { "id": "mine", "file": "/models/mine.gguf", "owned_by": "acme" } ],
 *   "redis": "redis://redis-host:6379"
 * }
 * }</pre>
 *
 * {@code models}, when present, is the deployment's whole model catalog, applied at start and on every reload
 * (SIGHUP, {@code POST /admin/v1/reload}); without it the catalog is the database's, changed by the admin API.
 * {@code redis}, when present, keeps the per-key rate limit buckets in Redis instead of the database (PostgreSQL's
 * by default; an SQLite deployment's are in its one process).
 * Unknown fields are an error, so a misspelt setting is not silently ignored.
 */
public record CloudConfig(String database, Integer rateLimitRps, String operatorToken, Map<String, Price> prices,
                          List<ModelSpec> models, String redis) {

    public record Price(@JsonProperty("prompt_per_million") BigDecimal promptPerMillion,
                        @JsonProperty("completion_per_million") BigDecimal completionPerMillion) {
    }

    public CloudConfig {
        prices = prices == null ? Map.of() : Map.copyOf(prices);
        models = models == null ? null : List.copyOf(models);
        if (rateLimitRps != null && rateLimitRps < 1) throw new IllegalArgumentException("rate_limit_rps must be at least 1");
    }

    /** Settings without a model list. */
    public CloudConfig(String database, Integer rateLimitRps, String operatorToken, Map<String, Price> prices) {
        this(database, rateLimitRps, operatorToken, prices, null, null);
    }

    /** Settings with limits in the database (or in-process). */
    public CloudConfig(String database, Integer rateLimitRps, String operatorToken, Map<String, Price> prices,
                       List<ModelSpec> models) {
        this(database, rateLimitRps, operatorToken, prices, models, null);
    }

    /** These settings with the rate limit buckets in the Redis at {@code url} ({@code --redis}). */
    public CloudConfig withRedis(String url) {
        return new CloudConfig(database, rateLimitRps, operatorToken, prices, models, url);
    }

    public static CloudConfig empty() {
        return new CloudConfig(null, null, null, Map.of());
    }

    public static CloudConfig read(Path file) throws IOException {
        var mapper = new ObjectMapper()
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        return mapper.readValue(file.toFile(), CloudConfig.class);
    }

    public RateLimits rateLimits() {
        return rateLimitRps == null ? RateLimits.defaults() : new RateLimits(rateLimitRps);
    }

    public Pricing pricing() {
        Map<String, Pricing.TokenPrice> out = new LinkedHashMap<>();
        prices.forEach((model, p) -> out.put(model, new Pricing.TokenPrice(
                p.promptPerMillion() == null ? BigDecimal.ZERO : p.promptPerMillion(),
                p.completionPerMillion() == null ? BigDecimal.ZERO : p.completionPerMillion())));
        return new Pricing(out);
    }

    @Override
    public String toString() {
        return "CloudConfig[database=" + (database == null ? null : database.replaceAll("(?i)(password=)[^&]*", "$1***")) + ", rateLimitRps=" + rateLimitRps + ", operatorToken="
                + (operatorToken == null ? "none" : "***") + ", prices=" + prices + ", models=" + models
                + ", redis=" + (redis == null ? null : redis.replaceAll("//[^@/]*@", "//***@")) + "]";
    }
}
