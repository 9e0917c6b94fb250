package dev.inferd.server.cloud.workers;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Which worker serves a request, decided from the live workers alone (no state, so it is tested on its own).
 *
 * <ol>
 *   <li>Among the workers that have the model loaded: the one that holds the conversation's prefix (rendezvous
 *       hashing of the affinity key over them, so a worker joining or leaving moves only its share), unless it
 *       holds {@value #AFFINITY_SLACK} or more requests beyond the least busy; else the least outstanding requests,
 *       then the least KV cache use.</li>
 *   <li>No worker has it: a worker that reports loading it (the least busy, should there be two), else the worker a
 *       gateway claimed its load for ({@link WorkerDirectory}), so a model is loaded once.</li>
 *   <li>Else the worker with the most free memory budget loads it.</li>
 * </ol>
 */
public final class RouteChooser {

    /** How many more requests than the least busy worker the prefix's worker may hold and still be preferred. */
    static final int AFFINITY_SLACK = 4;

    /**
     * @param worker the chosen worker's id
     * @param loads whether the request makes it load the model
     */
    public record Choice(String worker, boolean loads) {
    }

    private RouteChooser() {
    }

    /**
     * @param affinity a conversation's key (a session id, {@code prompt_cache_key}, or a hash of the prompt's
     *                 start), or null
     * @param loadingOn the worker whose load of {@code model} a gateway claimed, or null
     */
    public static Optional<Choice> choose(String model, String affinity, List<Candidate> live, String loadingOn) {
        List<Candidate> holding = live.stream().filter(c -> c.models().contains(model)).toList();
        if (!holding.isEmpty()) {
            Candidate least = holding.stream().min(LEAST_BUSY).orElseThrow();
            if (affinity != null) {
                Candidate preferred = holding.stream().max(Comparator.comparingLong((Candidate c) -> weight(affinity, c.id()))
                        .thenComparing(Candidate::id)).orElseThrow();
                if (preferred.outstanding() < least.outstanding() + AFFINITY_SLACK) {
                    return Optional.of(new Choice(preferred.id(), false));
                }
            }
            return Optional.of(new Choice(least.id(), false));
        }
        Optional<Candidate> loading = live.stream().filter(c -> c.loading().contains(model)).min(LEAST_BUSY);
        if (loading.isPresent()) return Optional.of(new Choice(loading.get().id(), true));
        if (loadingOn != null && live.stream().anyMatch(c -> c.id().equals(loadingOn))) {
            return Optional.of(new Choice(loadingOn, true));
        }
        return live.stream()
                .max(Comparator.comparingLong(Candidate::freeBytes)
                        .thenComparing(Comparator.comparingInt(Candidate::outstanding).reversed())
                        .thenComparing(Candidate::id, Comparator.reverseOrder()))
                .map(c -> new Choice(c.id(), true));
    }

    private static final Comparator<Candidate> LEAST_BUSY = Comparator.comparingInt(Candidate::outstanding)
            .thenComparingDouble(Candidate::kvUse)
            .thenComparing(Candidate::id);

    /** Rendezvous weight of a worker for a key: the same on every gateway, for any set of workers. */
    static long weight(String key, String worker) {
        var crc = new CRC32C();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        crc.update(0);
        crc.update(worker.getBytes(StandardCharsets.UTF_8));
        long h = crc.getValue();
        // spreads the 32-bit CRC over 64 bits (a finalizer of SplitMix64) so that close keys weigh unalike
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }
}
