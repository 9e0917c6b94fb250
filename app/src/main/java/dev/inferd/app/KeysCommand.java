package dev.inferd.app;

import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.InputRules;
import dev.inferd.server.cloud.auth.IssuedKey;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.usage.UsageCsv;
import dev.inferd.server.cloud.usage.UsageReport;
import dev.inferd.server.store.ApiKey;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageStore;
import dev.inferd.server.store.UsageTotals;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

import static dev.inferd.app.AccountsCommand.withAccounts;

/** {@code inferd keys create|list|rotate|revoke|usage}: an account's API keys, in the hosted deployment's database. */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = "Manage the API keys of an `inferd cloud` account (in the same database: --database or --config).",
        subcommands = {KeysCommand.Create.class, KeysCommand.ListKeys.class, KeysCommand.Rotate.class,
                KeysCommand.Revoke.class, KeysCommand.Usage.class})
public final class KeysCommand implements Runnable {

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    /** The secret alone on its line, between lines that say what it is. */
    static void printIssued(IssuedKey issued, String what) {
        System.out.println(what + " key " + issued.key().id() + " (" + issued.key().name() + "). Its secret, shown only this once:");
        System.out.println(issued.secret());
        System.out.println("Use it as: Authorization: Bearer <secret> (OpenAI SDKs: api_key / OPENAI_API_KEY).");
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a key and print its secret once.")
    static final class Create implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--account", required = true, paramLabel = "NAME")
        String account;

        @Option(names = "--name", defaultValue = "default", description = "a name to recognise the key by (default: ${DEFAULT-VALUE})")
        String name;

        @Option(names = "--models", split = ",", paramLabel = "ID", description = "models it may use (default: all)")
        List<String> models = List.of();

        @Option(names = "--endpoints", split = ",", paramLabel = "NAME",
                description = "endpoints it may use: chat.completions, completions, models, audio.transcriptions (default: all)")
        List<String> endpoints = List.of();

        @Option(names = "--expires", paramLabel = "WHEN", description = "a date, valid through that whole day in UTC"
                + " (2027-01-31: the key stops at 2027-02-01T00:00:00Z), or an ISO-8601 instant or epoch milliseconds at which"
                + " it stops; at most 100 years ahead, and a time already past is refused")
        String expires;

        @Option(names = "--rate-limit", paramLabel = "RPS", description = "requests per second, 1 to 100000 (default: the account's or the deployment's)")
        Integer rateLimit;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> {
                var spec = new KeySpec(name, new KeyScopes(models, endpoints), InputRules.expiry(expires), rateLimit);
                printIssued(accounts.createKey(accounts.requireAccount(account).id(), spec, Actor.cli()), "Created");
            });
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List an account's keys (never their secrets).")
    static final class ListKeys implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--account", required = true, paramLabel = "NAME")
        String account;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> {
                System.out.printf("%-28s %-16s %-12s %-8s %-22s %-22s %s%n", "ID", "NAME", "PREFIX", "STATE", "LAST USED",
                        "EXPIRES", "SCOPES");
                long now = System.currentTimeMillis();
                for (ApiKey k : accounts.listKeys(accounts.requireAccount(account).id())) {
                    String state = k.isRevoked() ? "revoked" : k.isExpired(now) ? "expired" : "active";
                    System.out.printf("%-28s %-16s %-12s %-8s %-22s %-22s models=%s endpoints=%s%n", k.id(), k.name(),
                            k.prefix() + "...", state, time(k.lastUsedAt()), time(k.expiresAt()),
                            String.join(",", k.scopes().models()), String.join(",", k.scopes().endpoints()));
                }
            });
        }
    }

    @Command(name = "rotate", mixinStandardHelpOptions = true,
            description = "Give a key a new secret; the old one keeps working for --grace (0: stops at once).")
    static final class Rotate implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--account", required = true, paramLabel = "NAME")
        String account;

        @Parameters(paramLabel = "KEY_ID")
        String keyId;

        @Option(names = "--grace", defaultValue = "PT24H", paramLabel = "DURATION",
                description = "how long the old secret stays valid, ISO-8601, 0 to a year (PT0S, PT1H, P7D; default: ${DEFAULT-VALUE})")
        Duration grace;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> printIssued(
                    accounts.rotateKey(accounts.requireAccount(account).id(), keyId, grace, Actor.cli()), "Rotated"));
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke a key: its next request is refused.")
    static final class Revoke implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--account", paramLabel = "NAME",
                description = "the account the key must belong to (optional: the key id names the key)")
        String account;

        @Parameters(paramLabel = "KEY_ID")
        String keyId;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> {
                String accountId = account != null ? accounts.requireAccount(account).id() : accounts.key(keyId).accountId();
                accounts.revokeKey(accountId, keyId, Actor.cli());
                System.out.println("Revoked " + keyId + ".");
            });
        }
    }

    @Command(name = "usage", mixinStandardHelpOptions = true, description = "An account's usage and cost, or its records as CSV.")
    static final class Usage implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--account", required = true, paramLabel = "NAME")
        String account;

        @Option(names = "--key", paramLabel = "KEY_ID")
        String key;

        @Option(names = "--model", paramLabel = "ID")
        String model;

        @Option(names = "--from", paramLabel = "WHEN", description = "a date (UTC) or instant, inclusive")
        String from;

        @Option(names = "--to", paramLabel = "WHEN", description = "a date (UTC) or instant, exclusive")
        String to;

        @Option(names = "--csv", description = "print every request as CSV instead of totals")
        boolean csv;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> {
                UsageFilter filter = UsageReport.filter(accounts.requireAccount(account).id(), key, model, from, to);
                var usage = new UsageStore(db);
                if (csv) {
                    System.out.print(UsageCsv.of(usage.list(filter, Integer.MAX_VALUE)));
                    return;
                }
                System.out.printf("%-12s %10s %14s %14s %12s %14s %s%n", "DAY", "REQUESTS", "PROMPT TOKENS",
                        "COMPL. TOKENS", "CACHED", "AUDIO SECONDS", "COST USD");
                for (UsageTotals d : usage.daily(filter)) print(Instant.ofEpochMilli(d.day()).toString().substring(0, 10), d);
                print("total", usage.totals(filter));
            });
        }

        private static void print(String label, UsageTotals t) {
            System.out.printf("%-12s %10d %14d %14d %12d %14s %s%n", label, t.requests(), t.promptTokens(),
                    t.completionTokens(), t.cachedTokens(), java.math.BigDecimal.valueOf(t.audioMillis(), 3).toPlainString(),
                    t.costUsd().toPlainString());
        }
    }

    private static String time(Long millis) {
        return millis == null ? "-" : Instant.ofEpochMilli(millis).toString();
    }
}
