package dev.inferd.server.cloud;

import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.CatalogModel;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** A model added or removed through one deployment is listed, or not, by another on the same PostgreSQL within a second. */
@Tag("slow")
class SharedCatalogTest {

    private static final PoolLimits ROOMY = new PoolLimits(0, 1L << 40, Duration.ofSeconds(20), 2, Duration.ofSeconds(30));

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open.reversed()) c.close();
    }

    private CloudDeployment deploy(String url) {
        Database db = Database.open(url);
        open.add(db);
        var cloud = CloudDeployment.withCatalog("127.0.0.1", 0, db, new CloudConfig(null, null, null, Map.of()),
                Clock.systemUTC(), new CloudDeployment.Catalog(new FakeOpener(), ROOMY, null));
        open.add(cloud);
        return cloud;
    }

    @Test
    void catalogChangesReachTheOtherDeploymentWithinASecond() throws Exception {
        String url = TestDatabases.url(TestDatabases.POSTGRESQL);
        CloudDeployment a = deploy(url);
        CloudDeployment b = deploy(url);
        assertThat(b.catalog().model("extra-1")).isEmpty();

        a.catalog().add(ModelSpec.slug("extra-1"));
        awaitWithinASecond(b, ids -> ids.contains("extra-1"));

        a.catalog().remove(FakeOpener.slug(7));
        awaitWithinASecond(b, ids -> !ids.contains(FakeOpener.slug(7)));
        assertThat(b.catalog().models()).hasSameSizeAs(a.catalog().models());
    }

    private static void awaitWithinASecond(CloudDeployment deployment, Predicate<List<String>> done) throws InterruptedException {
        long started = System.nanoTime();
        while (!done.test(ids(deployment))) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the other deployment's catalog: " + ids(deployment))
                    .isLessThan(Duration.ofSeconds(1));
            Thread.sleep(10);
        }
    }

    private static List<String> ids(CloudDeployment deployment) {
        return deployment.catalog().models().stream().map(CatalogModel::id).toList();
    }
}
