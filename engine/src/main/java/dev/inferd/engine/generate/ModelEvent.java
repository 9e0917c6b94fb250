package dev.inferd.engine.generate;

import java.nio.file.Path;

/**
 * What happens to a served model over its life, reported to its {@link Listener} as it happens: the
 * load, then, off the path of requests, the work that follows it (saving the weights' copies for
 * generated tokens to the copy cache, or moving mapped ones into memory, and moving the weights read
 * in place into memory).
 */
public sealed interface ModelEvent {

    /** The model's name, as clients use it. */
    String model();

    /** Receives a model's events, on the thread that does the work: quick, never blocking. */
    @FunctionalInterface
    interface Listener {
        Listener NONE = event -> { };

        void on(ModelEvent event);
    }

    /**
     * The model is loaded and takes requests.
     *
     * @param kvMemory what its KV cache takes once full
     * @param copyBytes bytes of copies of weights for generated tokens the load built or mapped (0 for none)
     * @param copiesMapped true when those copies were mapped from the copy cache, false when built
     * @param copyFile the copy cache's file for this model, or null without a cache
     */
    record Loaded(String model, ModelDescription description, int trainedContextLength, KVMemory kvMemory, long millis,
                  long copyBytes, boolean copiesMapped, Path copyFile) implements ModelEvent {
    }

    /** The copies the load built are saved: later loads map them. */
    record CopiesSaved(String model, Path file, long millis) implements ModelEvent {
    }

    /** The copies could not be saved; every load builds them. The model serves on. */
    record CopiesNotSaved(String model, Path directory, String reason) implements ModelEvent {
    }

    /** The copies mapped from the cache now live in memory. */
    record CopiesMovedIntoMemory(String model, long millis) implements ModelEvent {
    }

    /**
     * The warm-up is over: the kernels a request runs are compiled (or a request came first and stopped it).
     * Runs beside the work after the load. {@code millis} in all, of which {@code kernelMillis} for the
     * product kernels' {@code kernelRounds}, the rest for {@code passes} forward passes.
     */
    record WarmedUp(String model, long millis, int kernelRounds, long kernelMillis, int passes) implements ModelEvent {
    }

    /** Weights that were read in place from the model file now live in memory. */
    record WeightsMovedIntoMemory(String model, long bytes, long millis) implements ModelEvent {
    }
}
