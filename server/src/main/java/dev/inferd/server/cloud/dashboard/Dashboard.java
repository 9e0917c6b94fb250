package dev.inferd.server.cloud.dashboard;

import dev.inferd.server.cloud.CloudRoute;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.store.Database;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.time.Clock;

/** The account dashboard at {@code /dashboard}. */
public final class Dashboard implements CloudRoute {

    public Dashboard(Database db, Accounts accounts, Clock clock) {
    }

    @Override
    public void handle(ServerRequest request, ServerResponse response) {
        response.status(404);
        response.header(HeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.send("The dashboard is not available yet.");
    }
}
