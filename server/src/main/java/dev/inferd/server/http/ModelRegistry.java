package dev.inferd.server.http;

import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ModelObject;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/** The models this server answers for, in the order they were given (the order of {@code GET /v1/models}). */
public final class ModelRegistry {

    private final SequencedMap<String, TextGenerator> models;

    public ModelRegistry(Map<String, TextGenerator> models) {
        if (models.isEmpty()) throw new IllegalArgumentException("at least one model is needed");
        this.models = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(models));
    }

    /** The generator serving {@code id}, or a 404 {@code model_not_found}. */
    public TextGenerator get(String id) {
        TextGenerator generator = models.get(id);
        if (generator == null) throw ApiError.modelNotFound(id);
        return generator;
    }

    public ModelObject describe(String id) {
        return ModelObject.of(id, get(id).description());
    }

    public List<ModelObject> list() {
        return models.keySet().stream().map(this::describe).toList();
    }
}
