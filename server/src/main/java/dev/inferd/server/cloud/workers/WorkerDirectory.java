package dev.inferd.server.cloud.workers;

import dev.inferd.server.store.LoadClaim;
import dev.inferd.server.store.LoadClaims;
import dev.inferd.server.store.WorkerRow;
import dev.inferd.server.store.WorkerStore;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A gateway's view of the worker registry: the rows re-read every {@code refresh}, which workers are live, how many
 * requests this gateway has on each, and which worker loads a model no worker had (the claims all gateways share).
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

    /**
     * The worker a load claim names, as this gateway last read it, until the registry shows the model there or it is
     * read again.
     */
    private record Loading(String worker, long untilNanos) {
    }

    /** The shortest claim: long enough for the worker's renewals to show the load to every gateway. */
    static final Duration MIN_CLAIM = Duration.ofSeconds(10);
    /** How long a claim read from the database is followed before it is read again. */
    private static final Duration CLAIM_REREAD = Duration.ofSeconds(1);

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
    private final LoadClaims claims;
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
    public WorkerDirectory(WorkerStore store, LoadClaims claims, Duration ttl, Duration refresh, LongSupplier nanoTime) {
        this.store = store;
        this.claims = claims;
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

    public WorkerDirectory(WorkerStore store, LoadClaims claims, Duration ttl, Duration refresh) {
        this(store, claims, ttl, refresh, System::nanoTime);
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
     * {@link RouteChooser}. A model no worker has or is loading is loaded where the claim in the database says
     * ({@link LoadClaims}): the first gateway to claim it picks the worker, every other gateway sends its requests
     * there, so however many gateways receive its first requests, one worker loads it.
     */
    public Optional<Target> choose(String model, String affinity, Set<String> tried, Duration loadWait) {
        List<WorkerRow> usable = usable(tried);
        List<Candidate> candidates = usable.stream().map(this::candidate).toList();
        Loading known = loading.get(model);
        String claimed = known != null && nanoTime.getAsLong() - known.untilNanos() < 0 ? known.worker() : null;
        var choice = RouteChooser.choose(model, affinity, candidates, claimed);
        if (choice.isEmpty()) return Optional.empty();
        String chosen = choice.get().worker();
        boolean startsLoad = choice.get().loads() && !chosen.equals(claimed)
                && candidates.stream().noneMatch(c -> c.id().equals(chosen) && c.loading().contains(model));
        String worker = chosen;
        if (startsLoad) {
            worker = claimLoad(model, chosen, tried, loadWait);
            usable = usable(tried);
        }
        String id = worker;
        return usable.stream().filter(w -> w.id().equals(id)).findFirst()
                .map(row -> new Target(row, choice.get().loads()));
    }

    /**
     * Claims the load of {@code model} for {@code chosen} unless another gateway's claim is in force; the worker that
     * loads it. A claim naming a worker this gateway cannot use (out, or failed this request) is taken over.
     */
    private String claimLoad(String model, String chosen, Set<String> tried, Duration loadWait) {
        Duration ttl = loadWait.compareTo(MIN_CLAIM) < 0 ? MIN_CLAIM : loadWait;
        try {
            LoadClaim inForce = claims.claim(model, chosen, ttl, null);
            if (!isUsable(inForce.worker(), tried) && !seen.containsKey(inForce.worker())) {
                refreshQuietly(); // a worker that joined since this gateway last read the registry
            }
            if (!isUsable(inForce.worker(), tried)) inForce = claims.claim(model, chosen, ttl, inForce.token());
            if (!isUsable(inForce.worker(), tried)) return chosen; // taken over again at this instant: serve anyway
            remember(model, inForce.worker(),
                    Duration.ofMillis(Math.min(inForce.remainingMillis(), CLAIM_REREAD.toMillis())));
            return inForce.worker();
        } catch (RuntimeException e) {
            // the database is away for a moment: this gateway's requests for the model at least wait on one worker
            LOG.log(Level.WARNING, "cannot claim the load of " + model + ": " + e.getMessage());
            remember(model, chosen, ttl);
            return chosen;
        }
    }

    private void remember(String model, String worker, Duration forHowLong) {
        loading.put(model, new Loading(worker, nanoTime.getAsLong() + forHowLong.toNanos()));
    }

    private List<WorkerRow> usable(Set<String> tried) {
        return live().stream().filter(w -> !tried.contains(w.id())).toList();
    }

    private boolean isUsable(String worker, Set<String> tried) {
        return !tried.contains(worker) && live().stream().anyMatch(w -> w.id().equals(worker));
    }

    private Candidate candidate(WorkerRow w) {
        AtomicInteger mine = outstanding.get(w.id());
        int local = mine == null ? 0 : mine.get();
        return new Candidate(w.id(), new java.util.HashSet<>(w.models()), new java.util.HashSet<>(w.loading()),
                w.freeBytes(), Math.max(local, w.running() + w.waiting()), w.kvUse());
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
