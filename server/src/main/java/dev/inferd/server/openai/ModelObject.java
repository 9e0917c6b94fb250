package dev.inferd.server.openai;

import dev.inferd.engine.generate.ModelDescription;

/** One entry of {@code GET /v1/models}; {@code created} is integer Unix seconds. */
public record ModelObject(String id, String object, long created, String ownedBy) {

    public static ModelObject of(String id, ModelDescription description) {
        return new ModelObject(id, "model", description.created(), description.ownedBy());
    }
}
