package dev.inferd.server.pool;

import dev.inferd.server.openai.ModelObject;

import java.util.List;
import java.util.Optional;

/** The models a {@link ModelPool} may load, by id: the deployment's catalog. */
public interface ModelSource {

    /** The models in listing order (what {@code GET /v1/models} shows). */
    List<ModelObject> list();

    /** The listed model {@code id}, or empty when it is not listed. */
    Optional<ModelObject> find(String id);

    /** Whether the listed model {@code id} is a speech-to-text model. */
    boolean isSpeech(String id);

    /**
     * The memory the model will take once loaded, as far as it is known before loading it (its file's size at
     * least). Called before anything is downloaded, so a model that can never fit is refused at once.
     */
    long estimateBytes(String id);

    /** Loads the model, downloading it first when it is not on disk; blocks until it is ready. */
    LoadedModel load(String id) throws Exception;
}
