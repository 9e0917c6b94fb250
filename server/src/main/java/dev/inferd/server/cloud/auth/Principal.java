package dev.inferd.server.cloud.auth;

import dev.inferd.server.store.Account;
import dev.inferd.server.store.ApiKey;

/** Who a request is from: the key it carried and that key's account. */
public record Principal(ApiKey key, Account account) {
}
