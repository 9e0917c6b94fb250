package dev.inferd.server.cloud.workers;

import dev.inferd.server.store.WorkerRow;
import dev.inferd.server.store.WorkerStore;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A gateway's view of the worker registry: the rows re-read every {@code refresh}, which workers are live, how many
 * requests this gateway has on each, and which worker is loading which model.
 *
 * <p>A worker is live while its renewal count moves: a row whose count has not changed for {@code ttl} (on this
 * gateway's clock, so machines' clocks need not agree) is out, and so is one this gateway could not reach, until
 * it renews again. A draining worker takes no new request.
 */
public final class WorkerDirectory implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(WorkerDirectory.class.getName());

    /** A row and when this gateway last saw its renewal count change. */
    private record Seen(WorkerRow row, long changedNanos) {
    }

    /** A model being loaded on a worker for a request, until the registry shows it or the wait is over. */
    private record Loading(String worker, long untilNanos) {
    }

    /** One request's hold on a worker, counted until closed. */
    public final class Lease implements AutoCloseable {
        private final String worker;
        private boolean closed;

        private Lease(String worker) {
            this.worker = worker;
            outstanding.computeIfAbsent(worker, w -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            outstanding.get(worker).decrementAndGet();
        }
    }

    /**
     * The worker a request goes to.
     *
     * @param loads whether it is expected to load the model for the request
     */
    public record Target(WorkerRow worker, boolean loads) {
    }

    private final WorkerStore store;
    private final Duration ttl;
    private final LongSupplier nanoTime;
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> outstanding = new ConcurrentHashMap<>();
    private final Map<String, Long> unreachableAtBeat = new ConcurrentHashMap<>();
    private final Map<String, Loading> loading = new ConcurrentHashMap<>();
    private final Thread refresher;
    private volatile boolean closed;

    /**
     * @param refresh how often the registry is re-read; null for never (a test calls {@link #refresh()})
     */
    public WorkerDirectory(WorkerStore store, Duration ttl, Duration refresh, LongSupplier nanoTime) {
        this.store = store;
        this.ttl = ttl;
        this.nanoTime = nanoTime;
        refreshQuietly();
        if (refresh == null) {
            refresher = null;
        } else {
            refresher = Thread.ofPlatform().daemon(true).name("inferd-worker-directory").start(() -> {
                while (!closed) {
                    try {
                        Thread.sleep(refresh);
                    } catch (InterruptedException e) {
                        return;
                    }
                    refreshQuietly();
                }
            });
        }
    }

    public WorkerDirectory(WorkerStore store, Duration ttl, Duration refresh) {
        this(store, ttl, refresh, System::nanoTime);
    }

    /** Re-reads the registry now. */
    public void refresh() {
        long now = nanoTime.getAsLong();
        List<WorkerRow> rows = store.list();
        var ids = new java.util.HashSet<String>();
        for (WorkerRow row : rows) {
            ids.add(row.id());
            seen.compute(row.id(), (id, before) -> before != null && before.row().beats() == row.beats()
                    ? new Seen(row, before.changedNanos()) : new Seen(row, now));
        }
        seen.keySet().retainAll(ids);
        loading.entrySet().removeIf(e -> now - e.getValue().untilNanos() > 0 || holds(e.getValue().worker(), e.getKey()));
    }

    private void refreshQuietly() {
        try {
            refresh();
        } catch (RuntimeException e) {
            // the database is away for a moment: route by what was read last, which ages out by the ttl
            LOG.log(Level.WARNING, "cannot read the worker registry: " + e.getMessage());
        }
    }

    private boolean holds(String worker, String model) {
        Seen s = seen.get(worker);
        return s != null && s.row().models().contains(model);
    }

    /** The workers that take requests now. */
    public List<WorkerRow> live() {
        long now = nanoTime.getAsLong();
        List<WorkerRow> out = new ArrayList<>();
        for (Seen s : seen.values()) {
            WorkerRow row = s.row();
            if (row.draining() || now - s.changedNanos() > ttl.toNanos()) continue;
            Long unreachable = unreachableAtBeat.get(row.id());
            if (unreachable != null) {
                if (unreachable == row.beats()) continue;
                unreachableAtBeat.remove(row.id(), unreachable);
            }
            out.add(row);
        }
        out.sort(java.util.Comparator.comparing(WorkerRow::id));
        return out;
    }

    /**
     * The worker for a request for {@code model}, leaving out {@code tried} (workers that failed it already); see
     * {@link RouteChooser}. A choice that loads the model is remembered, so the next requests for it wait on the
     * same worker.
     */
    public Optional<Target> choose(String model, String affinity, java.util.Set<String> tried, Duration loadWait) {
        List<WorkerRow> live = live().stream().filter(w -> !tried.contains(w.id())).toList();
        List<Candidate> candidates = live.stream().map(this::candidate).toList();
        Loading load = loading.get(model);
        var choice = RouteChooser.choose(model, affinity, candidates, load == null ? null : load.worker());
        if (choice.isEmpty()) return Optional.empty();
        String id = choice.get().worker();
        if (choice.get().loads()) loading.put(model, new Loading(id, nanoTime.getAsLong() + loadWait.toNanos()));
        WorkerRow row = live.stream().filter(w -> w.id().equals(id)).findFirst().orElseThrow();
        return Optional.of(new Target(row, choice.get().loads()));
    }

    private Candidate candidate(WorkerRow w) {
        AtomicInteger mine = outstanding.get(w.id());
        int local = mine == null ? 0 : mine.get();
        return new Candidate(w.id(), new java.util.HashSet<>(w.models()), w.freeBytes(),
                Math.max(local, w.running() + w.waiting()), w.kvUse());
    }

    /** Counts a request on {@code worker} until the lease is closed. */
    public Lease lease(String worker) {
        return new Lease(worker);
    }

    /** This gateway could not reach {@code worker}: it is out until it renews its row again. */
    public void unreachable(WorkerRow worker) {
        unreachableAtBeat.put(worker.id(), worker.beats());
        loading.entrySet().removeIf(e -> e.getValue().worker().equals(worker.id()));
    }

    /** Requests this gateway holds on each worker now. */
    public Map<String, Integer> outstanding() {
        Map<String, Integer> out = new java.util.TreeMap<>();
        outstanding.forEach((id, n) -> out.put(id, n.get()));
        return out;
    }

    @Override
    public void close() {
        closed = true;
        if (refresher != null) refresher.interrupt();
    }
}
