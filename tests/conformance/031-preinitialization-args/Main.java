public class Main {
    static class Account {
        final long balance;
        final String owner;

        Account(String owner, long balance) {
            this.owner = owner;
            this.balance = balance;
        }

        Account(String owner) {
            this(owner.trim(), 100L);
        }
    }

    static class Savings extends Account {
        final double rate;

        Savings(String owner, double rate) {
            super(owner.toUpperCase(), Math.round(rate * 1000));
            this.rate = rate;
        }
    }

    public static void main(String[] args) {
        Account a = new Account("  ann  ");
        Savings s = new Savings("bob", 0.05);
        System.out.println(a.owner + " " + a.balance);
        System.out.println(s.owner + " " + s.balance + " " + s.rate);
    }
}
