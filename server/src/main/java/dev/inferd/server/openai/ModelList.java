package dev.inferd.server.openai;

import java.util.List;

/** {@code GET /v1/models}: no paging fields, as OpenAI sends none. */
public record ModelList(String object, List<ModelObject> data) {

    public static ModelList of(List<ModelObject> models) {
        return new ModelList("list", List.copyOf(models));
    }
}
