package dev.inferd.server.cloud.shared;

import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Database;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.Map;

/**
 * Two deployments on one database, each with a connection pool and listener of its own, as two processes would
 * have: what one writes the other must follow.
 */
final class TwoGateways implements AutoCloseable {

    static final Actor TEST = new Actor("test", "junit");

    final Database dbA;
    final Database dbB;
    final CloudDeployment a;
    final CloudDeployment b;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    TwoGateways(String url, String redisUrl) {
        var config = new CloudConfig(null, null, null, Map.of()).withRedis(redisUrl);
        dbA = Database.open(url);
        dbB = Database.open(url);
        a = CloudDeployment.start("127.0.0.1", 0, dbA, config, new ModelRegistry(), Clock.systemUTC());
        b = CloudDeployment.start("127.0.0.1", 0, dbB, config, new ModelRegistry(), Clock.systemUTC());
    }

    /** {@code GET /v1/models} on {@code deployment} with {@code secret}. */
    HttpResponse<String> models(CloudDeployment deployment, String secret) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + deployment.port() + "/v1/models"))
                .header("Authorization", "Bearer " + secret).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        a.close();
        b.close();
        dbA.close();
        dbB.close();
    }
}
