package dev.inferd.server.cloud;

import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Database;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A cloud deployment in a JVM of its own, to be killed: serves {@link CloudGatewayTest#CHAT} (three tokens at once)
 * and {@link CloudGatewayTest#SLOW} (a token every 5 ms) on a database, and writes the port it listens on to a file.
 * Arguments: JDBC URL, port file.
 */
public final class CrashTargetMain {
    private CrashTargetMain() {
    }

    public static void main(String[] args) throws Exception {
        java.util.logging.Logger.getLogger("org.eclipse.jetty").setLevel(java.util.logging.Level.WARNING);
        java.util.logging.Logger.getLogger("inferd.access").setLevel(java.util.logging.Level.WARNING);
        var registry = new ModelRegistry();
        registry.ready(CloudGatewayTest.CHAT, new EchoModel(CloudGatewayTest.CHAT));
        registry.ready(CloudGatewayTest.SLOW, new EchoModel(CloudGatewayTest.SLOW, 5));
        Database db = Database.open(args[0]);
        var cloud = CloudDeployment.start("127.0.0.1", 0, db, CloudConfig.empty(), registry, Clock.systemUTC());
        Path portFile = Path.of(args[1]);
        Path partial = portFile.resolveSibling(portFile.getFileName() + ".tmp");
        Files.writeString(partial, Integer.toString(cloud.port()));
        Files.move(partial, portFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Thread.currentThread().join();
    }
}
