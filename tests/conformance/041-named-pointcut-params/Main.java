public class Main {
    static class Account {
        private long balance;

        void deposit(long amount) {
            balance += amount;
        }

        boolean withdraw(long amount) {
            if (amount > balance) {
                return false;
            }
            balance -= amount;
            return true;
        }

        long balance() {
            return balance;
        }
    }

    public static void main(String[] args) {
        Account a = new Account();
        a.deposit(100);
        System.out.println(a.withdraw(30));
        System.out.println(a.withdraw(300));
        System.out.println(a.balance());
    }
}
