package dev.inferd.server.store;

import java.util.List;

/**
 * One worker as it last reported itself in the registry.
 *
 * @param address its base URL, e.g. {@code http://10.0.0.5:8001}
 * @param models the models it has loaded
 * @param loading the models it is loading
 * @param budgetBytes the memory its models may take together
 * @param freeBytes what is left of that budget
 * @param running sequences being decoded, over all its models
 * @param waiting requests queued in its engines
 * @param kvUse the fullest of its KV caches, 0 to 1
 * @param draining it stopped taking new requests (shutting down)
 * @param beats how many times it renewed its row
 */
public record WorkerRow(String id, String address, List<String> models, List<String> loading, long budgetBytes, long freeBytes, int running,
                        int waiting, double kvUse, boolean draining, long beats, long startedAt, long renewedAt) {
    public WorkerRow {
        models = List.copyOf(models);
        loading = List.copyOf(loading);
    }
}
