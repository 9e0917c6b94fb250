package dev.inferd.server.cloud.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.pool.ModelPool;
import dev.inferd.server.store.CatalogModel;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * What the admin API does with the catalog ({@code /admin/v1/models}, {@code /admin/v1/reload}), apart from HTTP:
 * each call returns the JSON body to send.
 */
public final class CatalogAdmin {

    private final DeploymentCatalog catalog;
    private final ModelPool pool;
    private final Callable<List<ModelSpec>> configuredModels;

    /**
     * @param configuredModels reads the config file's {@code models} anew (null when it has none); null when
     *                         the server has no config file
     */
    public CatalogAdmin(DeploymentCatalog catalog, ModelPool pool, Callable<List<ModelSpec>> configuredModels) {
        this.catalog = catalog;
        this.pool = pool;
        this.configuredModels = configuredModels;
    }

    /** {@code GET /admin/v1/models}: the catalog with each model's state. */
    public Map<String, Object> list() {
        return Map.of("object", "list", "data", catalog.models().stream().map(this::describe).toList());
    }

    /** {@code POST /admin/v1/models {"id", "file", "owned_by"}}. */
    public Map<String, Object> add(JsonNode body) {
        if (!body.isObject()) throw ApiError.invalidType("body", "an object", body.getNodeType().toString().toLowerCase());
        var spec = new ModelSpec(text(body, "id"), text(body, "file"), text(body, "owned_by"));
        return describe(catalog.add(spec));
    }

    /** {@code DELETE /admin/v1/models/{id}}: OpenAI's shape of a deleted model. */
    public Map<String, Object> remove(String id) {
        CatalogModel removed = catalog.remove(id);
        return Map.of("id", removed.id(), "object", "model", "deleted", true);
    }

    /** {@code POST /admin/v1/reload}: the database's list again, and the config file's {@code models} when it has them. */
    public Map<String, Object> reload() throws Exception {
        List<ModelSpec> configured;
        try {
            configured = configuredModels == null ? null : configuredModels.call();
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read the config file: " + e.getMessage(), e);
        }
        List<String> removed = catalog.reload(configured);
        Map<String, Object> out = new LinkedHashMap<>(list());
        out.put("removed", removed);
        out.put("from_config", configured != null);
        return out;
    }

    private Map<String, Object> describe(CatalogModel m) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", m.id());
        out.put("object", "model");
        out.put("created", m.created());
        out.put("owned_by", m.ownedBy());
        out.put("kind", m.kind());
        out.put("source", m.source());
        out.put("loaded", pool.loaded().contains(m.id()));
        out.put("loading", pool.loading(m.id()));
        out.put("in_flight", pool.inFlight(m.id()));
        return out;
    }

    private static String text(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) return null;
        if (!node.isTextual()) throw ApiError.invalidType(field, "a string", node.getNodeType().toString().toLowerCase());
        return node.asText();
    }
}
