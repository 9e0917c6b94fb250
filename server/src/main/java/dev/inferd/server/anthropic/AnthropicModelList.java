package dev.inferd.server.anthropic;

import dev.inferd.server.openai.ModelObject;

import java.time.Instant;
import java.util.List;

/**
 * {@code GET /v1/models} in Anthropic's shape, answered to requests that carry {@code anthropic-version}: one
 * page holding every model.
 */
public record AnthropicModelList(List<Model> data, boolean hasMore, String firstId, String lastId) {

    /** @param createdAt RFC 3339 */
    public record Model(String type, String id, String displayName, String createdAt) {
        public static Model of(ModelObject m) {
            return new Model("model", m.id(), m.id(), Instant.ofEpochSecond(m.created()).toString());
        }
    }

    public static AnthropicModelList of(List<ModelObject> models) {
        List<Model> data = models.stream().map(Model::of).toList();
        return new AnthropicModelList(data, false, data.isEmpty() ? null : data.getFirst().id(),
                data.isEmpty() ? null : data.getLast().id());
    }
}
