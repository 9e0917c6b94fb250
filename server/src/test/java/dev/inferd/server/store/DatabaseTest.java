package dev.inferd.server.store;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The schema and the stores, on SQLite (and on a real PostgreSQL in {@link PostgresDatabaseTest}). */
class DatabaseTest {

    /** The kind of database the tests run on; a subclass runs them on PostgreSQL. */
    String kind() {
        return TestDatabases.SQLITE;
    }

    @Test
    void accountsKeysSecretsAndAuditRoundTrip() {
        String kind = kind();
        try (Database db = TestDatabases.open(kind)) {
            var accounts = new AccountStore(db);
            var keys = new KeyStore(db);
            var audit = new AuditLog(db);
            Account acme = accounts.create("acme", 10, 1_000);
            assertThat(accounts.byName("acme")).contains(acme);
            assertThatThrownBy(() -> accounts.create("acme", null, 2_000)).isInstanceOf(IllegalArgumentException.class);

            var scopes = new KeyScopes(List.of("m1", "org/m:Q8_0"), List.of("chat.completions"));
            var key = new ApiKey("key_1", acme.id(), "ci", "sk-abc", scopes, 5_000L, 1_000, null, 7, null);
            keys.insert(key, "hash-1");
            assertThat(keys.bySecretHash("hash-1")).get().satisfies(m -> {
                assertThat(m.key()).isEqualTo(key);
                assertThat(m.secretExpiresAt()).isNull();
            });
            keys.rotate("key_1", "hash-2", "sk-def", 2_000, 3_000);
            assertThat(keys.bySecretHash("hash-1").orElseThrow().secretExpiresAt()).isEqualTo(3_000L);
            assertThat(keys.bySecretHash("hash-2").orElseThrow().key().prefix()).isEqualTo("sk-def");
            keys.revoke("key_1", 4_000);
            assertThat(keys.byId(acme.id(), "key_1").orElseThrow().revokedAt()).isEqualTo(4_000L);
            assertThat(keys.byId("acct_other", "key_1")).isEmpty();

            audit.append(acme.id(), "cli", "key.create", "key_1", "name=ci", "cli", 1_000);
            audit.append(acme.id(), "operator", "key.revoke", "key_1", null, "10.0.0.1", 4_000);
            assertThat(audit.list(acme.id(), 10)).extracting(AuditEntry::action).containsExactly("key.revoke", "key.create");
        }
    }

    @Test
    void keptResponsesArePerAccount() {
        try (Database db = TestDatabases.open(kind())) {
            var responses = new ResponseTable(db);
            String big = "{\"text\":\"" + "x".repeat(100_000) + "\"}";
            var kept = new dev.inferd.server.responses.StoredResponse("resp_1", 1_000, big, "[{\"id\":\"msg_1\"}]", "[]");
            responses.put("acct_a", kept);
            responses.put("acct_a", kept); // a second put replaces
            assertThat(responses.get("acct_a", "resp_1")).contains(kept);
            assertThat(responses.get("acct_b", "resp_1")).isEmpty();
            assertThat(responses.delete("acct_b", "resp_1")).isFalse();
            assertThat(responses.delete("acct_a", "resp_1")).isTrue();
            assertThat(responses.get("acct_a", "resp_1")).isEmpty();
        }
    }

    @Test
    void theModelCatalogKeepsItsOrderAndRemovalsAndIsFilledOnce() {
        try (Database db = TestDatabases.open(kind())) {
            var catalog = new CatalogStore(db);
            assertThat(catalog.neverFilled()).isTrue();
            catalog.addAll(List.of(new CatalogModel("b-model", "meta", "chat", "b-model", 100),
                    new CatalogModel("a-model", "openai", "speech", "a-model", 100)));
            assertThat(catalog.list()).extracting(CatalogModel::id).containsExactly("b-model", "a-model");
            assertThat(catalog.remove("b-model", 5_000)).isTrue();
            assertThat(catalog.remove("b-model", 6_000)).isFalse();
            assertThat(catalog.list()).extracting(CatalogModel::id).containsExactly("a-model");
            assertThat(catalog.neverFilled()).as("a removed model still counts").isFalse();
            catalog.addAll(List.of(new CatalogModel("b-model", "acme", "chat", "/models/b.gguf", 200)));
            assertThat(catalog.list()).containsExactly(new CatalogModel("a-model", "openai", "speech", "a-model", 100),
                    new CatalogModel("b-model", "acme", "chat", "/models/b.gguf", 200));
        }
    }

    @Test
    void usageTotalsAreExactPerFilterAndDay() {
        String kind = kind();
        try (Database db = TestDatabases.open(kind)) {
            Account a = new AccountStore(db).create("a", null, 0);
            var keys = new KeyStore(db);
            keys.insert(new ApiKey("k1", a.id(), "one", "sk-1", KeyScopes.EVERYTHING, null, 0, null, null, null), "h1");
            keys.insert(new ApiKey("k2", a.id(), "two", "sk-2", KeyScopes.EVERYTHING, null, 0, null, null, null), "h2");
            var usage = new UsageStore(db);
            long day = 86_400_000L;
            usage.insert(record(a, "k1", "m", 10, 5, new BigDecimal("0.0206666667"), 1_000));
            usage.insert(record(a, "k1", "m", 3, 2, new BigDecimal("0.0206666667"), day + 5));
            usage.insert(record(a, "k2", "w", 0, 0, new BigDecimal("0.0003333333"), day + 9));

            UsageTotals all = usage.totals(UsageFilter.account(a.id()));
            assertThat(all.requests()).isEqualTo(3);
            assertThat(all.promptTokens()).isEqualTo(13);
            assertThat(all.completionTokens()).isEqualTo(7);
            assertThat(all.costUsd()).isEqualByComparingTo("0.0416666667");
            assertThat(usage.totals(UsageFilter.account(a.id()).key("k2")).costUsd()).isEqualByComparingTo("0.0003333333");
            assertThat(usage.totals(UsageFilter.account(a.id()).model("m")).requests()).isEqualTo(2);
            assertThat(usage.totals(UsageFilter.account(a.id()).period(day, null)).requests()).isEqualTo(2);
            assertThat(usage.daily(UsageFilter.account(a.id()))).extracting(UsageTotals::day, UsageTotals::requests)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 1L), org.assertj.core.groups.Tuple.tuple(day, 2L));
            assertThat(usage.list(UsageFilter.account(a.id()), 10)).hasSize(3).first()
                    .satisfies(r -> assertThat(r.keyId()).isEqualTo("k2"));
            assertThat(usage.totals(UsageFilter.account("acct_nobody")).requests()).isZero();
        }
    }

    @Test
    void reopeningKeepsDataAndMigratesOnce() {
        String kind = kind();
        String url = TestDatabases.url(kind);
        try (Database db = Database.open(url)) {
            new AccountStore(db).create("kept", null, 1);
        }
        try (Database db = Database.open(url)) {
            assertThat(new AccountStore(db).list()).extracting(Account::name).containsExactly("kept");
        }
    }

    @Test
    void unsupportedUrlIsAClearError() {
        assertThatThrownBy(() -> Database.open("jdbc:mysql://h/db?user=u&password=secret"))
                .isInstanceOf(StoreException.class).hasMessageContaining("unsupported").hasMessageNotContaining("secret");
    }

    private static UsageRecord record(Account a, String key, String model, int prompt, int completion, BigDecimal cost,
                                      long at) {
        return new UsageRecord(RowIds.next("use"), a.id(), key, model, "chat.completions", prompt, completion, 0, 0, 200,
                12, cost, at);
    }
}
