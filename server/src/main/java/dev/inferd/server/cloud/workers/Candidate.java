package dev.inferd.server.cloud.workers;

import java.util.Set;

/**
 * A live worker as the gateway sees it when it routes one request.
 *
 * @param models the models it has loaded
 * @param loading the models it is loading
 * @param freeBytes what is left of its memory budget
 * @param outstanding requests it holds: the more of this gateway's own count and what the worker last reported
 *                    (its running and waiting requests, which include other gateways')
 * @param kvUse the fullest of its KV caches, 0 to 1
 */
public record Candidate(String id, Set<String> models, Set<String> loading, long freeBytes, int outstanding, double kvUse) {
    public Candidate {
        models = Set.copyOf(models);
        loading = Set.copyOf(loading);
    }

    /** A worker loading nothing. */
    public Candidate(String id, Set<String> models, long freeBytes, int outstanding, double kvUse) {
        this(id, models, Set.of(), freeBytes, outstanding, kvUse);
    }
}
