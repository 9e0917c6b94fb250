package dev.inferd.server.cloud.catalog;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A model an operator adds to the deployment's catalog (the admin API's body, an entry of the config's
 * {@code models}): a catalog slug alone ({@code {"id": "llama-3.2-1b-instruct"}}), or any id for a local model
 * file ({@code {"id": "mine", "file": "/models/mine.gguf", "owned_by": "acme"}}).
 *
 * @param file null for a catalog slug
 * @param ownedBy null for the catalog's owner, or {@code user} for a file
 */
public record ModelSpec(@JsonProperty("id") String id, @JsonProperty("file") String file,
                        @JsonProperty("owned_by") String ownedBy) {

    public ModelSpec {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("a model needs an 'id'");
        id = id.strip();
    }

    public static ModelSpec slug(String id) {
        return new ModelSpec(id, null, null);
    }
}
