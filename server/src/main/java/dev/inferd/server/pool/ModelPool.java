package dev.inferd.server.pool;

import dev.inferd.server.metrics.EngineStats;
import dev.inferd.server.openai.ApiError;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The models of a catalog loaded on demand within a memory budget. The first request for a model that is not
 * loaded starts its load (on a thread of its own) and waits for it at most {@link PoolLimits#loadWait()}; past
 * that it gets a 503 with {@code Retry-After} while the load goes on. Room for a model is made by unloading the
 * least recently used idle models; a model with requests in flight is never unloaded.
 *
 * <pre>{@code
 * ModelPool pool = new ModelPool(source, PoolLimits.defaults(physicalMemory));
 * try (ModelPool.Use use = pool.use("llama-3.2-1b")) {
 *     ... use.model() ...
 * }
 * }</pre>
 *
 * Errors are {@link ApiError}s in OpenAI's shape: 404 for a model the catalog does not list, 503
 * {@code model_loading} (with {@code Retry-After}) while it loads, 503 {@code model_capacity} (with
 * {@code Retry-After}) when every loaded model is busy and no room can be made, 503 {@code model_too_large}
 * (no retry) for a model larger than the whole budget, 503 {@code model_load_failed} when its load failed.
 */
public final class ModelPool implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ModelPool.class.getName());

    /** One model's place in the pool, from the start of its load until it is unloaded. */
    private static final class Slot {
        final String id;
        final CompletableFuture<LoadedModel> loaded = new CompletableFuture<>();
        long bytes;
        int inFlight;
        long lastUsed;
        LoadedModel model;
        String failure;
        long failedAtNanos;
        boolean closed;

        Slot(String id, long bytes) {
            this.id = id;
            this.bytes = bytes;
        }

        boolean ready() {
            return model != null;
        }
    }

    /** One request's hold on a loaded model; closing it lets the model be unloaded again. */
    public static final class Use implements AutoCloseable {
        private final ModelPool pool;
        private final Slot slot;
        private boolean released;

        private Use(ModelPool pool, Slot slot) {
            this.pool = pool;
            this.slot = slot;
        }

        public LoadedModel model() {
            return slot.model;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (released) return;
                released = true;
            }
            pool.release(slot);
        }
    }

    private final ModelSource source;
    private final PoolLimits limits;
    /** The models loaded or loading, by id; guarded by this. */
    private final Map<String, Slot> slots = new HashMap<>();
    /** Bytes held by every slot not yet closed, also those of models taken out of the catalog but still in use. */
    private long heldBytes;
    private int heldModels;
    private long tick;
    private boolean closed;

    public ModelPool(ModelSource source, PoolLimits limits) {
        this.source = source;
        this.limits = limits;
    }

    public ModelSource source() {
        return source;
    }

    public PoolLimits limits() {
        return limits;
    }

    /**
     * The model {@code id}, loaded first if need be; the caller closes the {@link Use} when its request is done.
     *
     * @throws ApiError as the class describes
     */
    public Use use(String id) throws InterruptedException {
        if (source.find(id).isEmpty()) throw ApiError.modelNotFound(id);
        Slot slot;
        List<Slot> evicted = new ArrayList<>();
        synchronized (this) {
            if (closed) throw ApiError.modelFailed(id, "the server is shutting down");
            slot = slots.get(id);
            if (slot != null && slot.failure != null
                    && System.nanoTime() - slot.failedAtNanos >= limits.failedHold().toNanos()) {
                slots.remove(id);
                slot = null;
            }
            if (slot == null) slot = startLoad(id, evicted);
            if (slot.failure != null) throw ApiError.modelFailed(id, slot.failure);
            slot.inFlight++;
            slot.lastUsed = ++tick;
        }
        closeAll(evicted);
        try {
            slot.loaded.get(limits.loadWait().toNanos(), TimeUnit.NANOSECONDS);
            return new Use(this, slot);
        } catch (TimeoutException e) {
            release(slot);
            throw ApiError.modelLoading(id, limits.retryAfterSeconds());
        } catch (ExecutionException e) {
            release(slot);
            throw ApiError.modelFailed(id, slot.failure != null ? slot.failure : String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            release(slot);
            throw e;
        }
    }

    /**
     * Unloads {@code id} as soon as no request uses it (at once when idle): the catalog no longer lists it.
     * A load under way finishes, serves the requests that wait for it, and is then unloaded.
     */
    public void unload(String id) {
        Slot slot;
        synchronized (this) {
            slot = slots.remove(id);
            if (slot == null || !slot.ready() || slot.inFlight > 0) return;
            markClosed(slot);
        }
        closeAll(List.of(slot));
    }

    /** The ids of the models loaded now, least recently used first. */
    public synchronized List<String> loaded() {
        return slots.values().stream().filter(Slot::ready).sorted(Comparator.comparingLong(s -> s.lastUsed))
                .map(s -> s.id).toList();
    }

    /** The ids of the models loading now. */
    public synchronized List<String> loading() {
        return slots.values().stream().filter(s -> !s.ready() && s.failure == null).map(s -> s.id).sorted().toList();
    }

    /** Whether {@code id} is loading now. */
    public synchronized boolean loading(String id) {
        Slot slot = slots.get(id);
        return slot != null && !slot.ready() && slot.failure == null;
    }

    /** Requests using {@code id} now (and waiting for its load). */
    public synchronized int inFlight(String id) {
        Slot slot = slots.get(id);
        return slot == null ? 0 : slot.inFlight;
    }

    /** The bytes the loaded and loading models hold. */
    public synchronized long heldBytes() {
        return heldBytes;
    }

    /** The engine stats of the loaded text models that have them. */
    public synchronized Map<String, EngineStats> engineStats() {
        Map<String, EngineStats> stats = new LinkedHashMap<>();
        slots.forEach((id, slot) -> {
            if (slot.model instanceof LoadedModel.Text t && t.stats() != null) stats.put(id, t.stats());
        });
        return stats;
    }

    /** Unloads every idle model now; models in use are unloaded when their last request ends. */
    @Override
    public void close() {
        List<Slot> idle = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (var it = slots.values().iterator(); it.hasNext(); ) {
                Slot slot = it.next();
                it.remove();
                if (slot.ready() && slot.inFlight == 0) {
                    markClosed(slot);
                    idle.add(slot);
                }
            }
        }
        closeAll(idle);
    }

    /** Reserves room for {@code id} (unloading idle models into {@code evicted}) and starts its load. */
    private Slot startLoad(String id, List<Slot> evicted) {
        long estimate;
        try {
            estimate = Math.max(0, source.estimateBytes(id));
        } catch (ApiError e) {
            throw e;
        } catch (RuntimeException e) {
            throw ApiError.modelFailed(id, e.getMessage() == null ? e.toString() : e.getMessage());
        }
        if (estimate > limits.memoryBudget()) {
            throw ApiError.modelTooLarge(id, "it needs about " + estimate + " bytes and the server's memory budget is "
                    + limits.memoryBudget() + " bytes (--memory-budget)");
        }
        if (!makeRoom(estimate, null, evicted)) {
            throw ApiError.noRoomForModel(id, "the models loaded or loading are all in use and the server's budget ("
                    + describeLimits() + ") leaves no room for another. Please retry shortly.", limits.retryAfterSeconds());
        }
        Slot slot = new Slot(id, estimate);
        slots.put(id, slot);
        heldBytes += estimate;
        heldModels++;
        Thread.ofVirtual().name("inferd-load-" + id).start(() -> load(slot));
        return slot;
    }

    private void load(Slot slot) {
        LoadedModel model;
        try {
            model = source.load(slot.id);
        } catch (Throwable e) {
            failed(slot, e);
            return;
        }
        List<Slot> evicted = new ArrayList<>();
        boolean unwanted;
        synchronized (this) {
            heldBytes += model.bytes() - slot.bytes;
            slot.bytes = model.bytes();
            slot.model = model;
            unwanted = slots.get(slot.id) != slot && slot.inFlight == 0;
            if (unwanted) {
                markClosed(slot);
            } else {
                // the estimate was short: unload idle others until the budget holds again (this one stays)
                makeRoom(0, slot, evicted);
            }
        }
        LOG.log(Level.INFO, "model " + slot.id + " loaded (" + model.bytes() + " bytes)");
        slot.loaded.complete(model);
        if (unwanted) evicted.add(slot);
        closeAll(evicted);
    }

    private void failed(Slot slot, Throwable e) {
        String why = e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage();
        LOG.log(Level.WARNING, "model " + slot.id + " failed to load: " + why);
        synchronized (this) {
            slot.failure = why;
            slot.failedAtNanos = System.nanoTime();
            if (!slot.closed) {
                slot.closed = true;
                heldBytes -= slot.bytes;
                heldModels--;
            }
        }
        slot.loaded.completeExceptionally(e);
    }

    /**
     * Unloads idle models, least recently used first, until {@code bytes} more fit the budget and one more model
     * the count; false when that cannot be done. With {@code bytes} 0 and a {@code keep}, only the budget is made
     * to hold again, {@code keep} counted already. Holds this lock.
     */
    private boolean makeRoom(long bytes, Slot keep, List<Slot> evicted) {
        int extraModels = keep == null ? 1 : 0;
        while (heldBytes + bytes > limits.memoryBudget()
                || (limits.maxLoaded() > 0 && heldModels + extraModels > limits.maxLoaded())) {
            Slot victim = slots.values().stream()
                    .filter(s -> s != keep && s.ready() && s.inFlight == 0)
                    .min(Comparator.comparingLong(s -> s.lastUsed)).orElse(null);
            if (victim == null) return false;
            slots.remove(victim.id);
            markClosed(victim);
            evicted.add(victim);
        }
        return true;
    }

    private void release(Slot slot) {
        boolean close;
        synchronized (this) {
            slot.inFlight--;
            slot.lastUsed = ++tick;
            close = slot.inFlight == 0 && slot.ready() && !slot.closed && slots.get(slot.id) != slot;
            if (close) markClosed(slot);
        }
        if (close) closeAll(List.of(slot));
    }

    /** Counts a slot's memory as given back; the caller closes its model outside the lock. */
    private void markClosed(Slot slot) {
        if (slot.closed) return;
        slot.closed = true;
        heldBytes -= slot.bytes;
        heldModels--;
    }

    private static void closeAll(List<Slot> unloaded) {
        for (Slot slot : unloaded) {
            try {
                if (slot.model != null) slot.model.close();
                LOG.log(Level.INFO, "model " + slot.id + " unloaded");
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "unloading model " + slot.id + " failed: " + e.getMessage());
            }
        }
    }

    private String describeLimits() {
        return limits.memoryBudget() + " bytes" + (limits.maxLoaded() > 0 ? ", at most " + limits.maxLoaded() + " loaded at once" : "");
    }
}
