package dev.inferd.app;

import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.StoreException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.NoSuchElementException;
import java.util.concurrent.Callable;

/** {@code inferd accounts create|list|add-user}: the hosted deployment's accounts, in its database. */
@Command(name = "accounts", mixinStandardHelpOptions = true,
        description = "Manage the accounts of `inferd cloud` (in the same database: --database or --config).",
        subcommands = {AccountsCommand.Create.class, AccountsCommand.ListAll.class, AccountsCommand.AddUser.class})
public final class AccountsCommand implements Runnable {

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    /** Runs {@code work} against the database, turning expected failures into a message and exit code 1. */
    static int withAccounts(StoreOptions store, Work work) {
        try (Database db = store.open()) {
            work.run(new Accounts(db, Clock.systemUTC()), db);
            return 0;
        } catch (IllegalArgumentException | IllegalStateException | NoSuchElementException | StoreException e) {
            System.err.println("inferd: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            System.err.println("inferd: cannot read the config: " + e.getMessage());
            return 1;
        }
    }

    @FunctionalInterface
    interface Work {
        void run(Accounts accounts, Database db) throws IOException;
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an account.")
    static final class Create implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Parameters(paramLabel = "NAME", description = "1 to 100 letters, digits, '.', '_' or '-'")
        String name;

        @Option(names = "--rate-limit", paramLabel = "RPS", description = "requests per second for each of its keys, 1 to 100000 (default: the deployment's)")
        Integer rateLimit;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> {
                Account account = accounts.createAccount(name, rateLimit, Actor.cli());
                System.out.println("Created account " + account.name() + " (" + account.id() + ").");
                System.out.println("Next: inferd keys create --account " + account.name() + " --name default");
            });
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the accounts.")
    static final class ListAll implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> {
                System.out.printf("%-30s %-30s %-10s %s%n", "NAME", "ID", "RPS", "CREATED");
                for (Account a : accounts.listAccounts()) {
                    System.out.printf("%-30s %-30s %-10s %s%n", a.name(), a.id(),
                            a.rateLimit() == null ? "default" : a.rateLimit(), Instant.ofEpochMilli(a.createdAt()));
                }
            });
        }
    }

    @Command(name = "add-user", mixinStandardHelpOptions = true,
            description = "Add a dashboard user to an account; the password is read from standard input.")
    static final class AddUser implements Callable<Integer> {
        @Mixin
        StoreOptions store;

        @Option(names = "--account", required = true, paramLabel = "NAME")
        String account;

        @Option(names = "--email", required = true, paramLabel = "EMAIL", description = "at most 254 characters")
        String email;

        @Override
        public Integer call() {
            return withAccounts(store, (accounts, db) -> {
                String password = readPassword();
                var user = accounts.addUser(accounts.requireAccount(account).id(), email, password, Actor.cli());
                System.out.println("Added " + user.email() + " to " + account + "; sign in at /dashboard.");
            });
        }

        private static String readPassword() throws IOException {
            var console = System.console();
            if (console != null && console.isTerminal()) {
                char[] typed = console.readPassword("Password: ");
                return typed == null ? "" : new String(typed);
            }
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            return line == null ? "" : line;
        }
    }
}
