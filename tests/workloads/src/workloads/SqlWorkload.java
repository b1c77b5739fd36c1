package workloads;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The SQL workload the h2 and hsqldb drivers share: tables created, generated
 * rows inserted in batches and transactions (one rolled back), indexes, then
 * joins, aggregates, subqueries, updates and deletes, every query's rows
 * written to {@code out/<name>.txt} in a fixed order.
 */
public final class SqlWorkload {
    private SqlWorkload() {}

    /** Number of customers. */
    static final int CUSTOMERS = 800;
    /** Number of orders. */
    static final int ORDERS = 8000;

    /** Writes {@code customers.tsv} and {@code orders.tsv} under {@code dir}. */
    public static void generate(Path dir) throws IOException {
        Rng rng = new Rng(7);
        String[] cities = {"Lyon", "Oslo", "Porto", "Gent", "Turku", "Split", "Brno", "Cork", "Graz", "Kaunas"};
        StringBuilder c = new StringBuilder();
        for (int i = 1; i <= CUSTOMERS; i++) {
            c.append(i).append('\t').append(rng.name()).append(' ').append(rng.name()).append('\t')
                    .append(rng.pick(cities)).append('\t').append(rng.between(1950, 2005)).append('\n');
        }
        Results.writeInput(dir, "customers.tsv", c);
        StringBuilder o = new StringBuilder();
        for (int i = 1; i <= ORDERS; i++) {
            o.append(i).append('\t').append(rng.between(1, CUSTOMERS)).append('\t').append(rng.word())
                    .append('\t').append(rng.between(1, 20)).append('\t').append(rng.between(100, 99999))
                    .append('\t').append(2000 + rng.below(24)).append('-')
                    .append(two(rng.between(1, 12))).append('-')
                    .append(two(rng.between(1, 28))).append('\n');
        }
        Results.writeInput(dir, "orders.tsv", o);
    }

    private static String two(int n) {
        return n < 10 ? "0" + n : Integer.toString(n);
    }

    /** Runs the workload on {@code db}, reading the inputs from {@code in}; prints a summary. */
    public static void run(Connection db, Path in, String engine) throws Exception {
        StringBuilder log = new StringBuilder();
        try (Statement s = db.createStatement()) {
            s.execute("CREATE TABLE customer (id INT PRIMARY KEY, name VARCHAR(80) NOT NULL, "
                    + "city VARCHAR(40) NOT NULL, born INT NOT NULL)");
            s.execute("CREATE TABLE orders (id INT PRIMARY KEY, customer INT NOT NULL REFERENCES customer(id), "
                    + "item VARCHAR(40) NOT NULL, qty INT NOT NULL, cents BIGINT NOT NULL, placed DATE NOT NULL)");
        }
        db.setAutoCommit(false);
        int customers = load(db, in, "customers.tsv", "INSERT INTO customer VALUES (?, ?, ?, ?)", false);
        int orders = load(db, in, "orders.tsv", "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)", true);
        db.commit();
        try (Statement s = db.createStatement()) {
            s.execute("CREATE INDEX orders_customer ON orders(customer)");
            s.execute("CREATE INDEX orders_item ON orders(item, qty)");
            s.execute("CREATE INDEX customer_city ON customer(city)");
        }
        db.commit();
        // A transaction rolled back: its changes must not show.
        try (Statement s = db.createStatement()) {
            log.append("doomed update: ").append(s.executeUpdate("UPDATE orders SET qty = qty * 100")).append('\n');
            log.append("doomed delete: ").append(s.executeUpdate("DELETE FROM orders WHERE cents < 50000")).append('\n');
        }
        db.rollback();
        query(db, "count", "SELECT COUNT(*), SUM(qty), SUM(cents), MIN(placed), MAX(placed) FROM orders");
        query(db, "by-city", "SELECT c.city, COUNT(o.id), SUM(o.qty * o.cents), MAX(o.cents) FROM customer c "
                + "JOIN orders o ON o.customer = c.id GROUP BY c.city ORDER BY c.city");
        query(db, "top-customers", "SELECT c.id, c.name, COUNT(*) AS n, SUM(o.cents) AS total FROM customer c "
                + "JOIN orders o ON o.customer = c.id GROUP BY c.id, c.name HAVING COUNT(*) >= 14 "
                + "ORDER BY total DESC, c.id");
        query(db, "items", "SELECT item, COUNT(*), SUM(qty), MIN(cents), MAX(cents) FROM orders "
                + "WHERE qty BETWEEN 3 AND 17 GROUP BY item ORDER BY COUNT(*) DESC, item");
        query(db, "no-orders", "SELECT c.id, c.name FROM customer c WHERE NOT EXISTS "
                + "(SELECT 1 FROM orders o WHERE o.customer = c.id) ORDER BY c.id");
        query(db, "above-average", "SELECT o.id, o.customer, o.cents FROM orders o WHERE o.cents > "
                + "(SELECT AVG(o2.cents) * 1.9 FROM orders o2 WHERE o2.customer = o.customer) ORDER BY o.id");
        query(db, "left-join", "SELECT c.city, c.born, COUNT(o.id) FROM customer c LEFT JOIN orders o "
                + "ON o.customer = c.id AND o.item LIKE 's%' WHERE c.born < 1960 GROUP BY c.city, c.born "
                + "ORDER BY c.city, c.born");
        query(db, "years", "SELECT EXTRACT(YEAR FROM placed) AS y, COUNT(*), SUM(cents) FROM orders "
                + "GROUP BY EXTRACT(YEAR FROM placed) ORDER BY y");
        query(db, "case", "SELECT CASE WHEN cents < 10000 THEN 'small' WHEN cents < 50000 THEN 'medium' "
                + "ELSE 'large' END AS size, COUNT(*) FROM orders GROUP BY CASE WHEN cents < 10000 THEN 'small' "
                + "WHEN cents < 50000 THEN 'medium' ELSE 'large' END ORDER BY 1");
        query(db, "strings", "SELECT id, UPPER(name), LENGTH(name), SUBSTRING(name, 2, 3), "
                + "LOWER(city) || '/' || CAST(born AS VARCHAR(10)) FROM customer WHERE name LIKE '%a%' "
                + "ORDER BY name, id");
        try (Statement s = db.createStatement()) {
            log.append("update: ").append(s.executeUpdate(
                    "UPDATE orders SET cents = cents + 1 WHERE item IN ('the', 'river', 'stone')")).append('\n');
            log.append("delete: ").append(s.executeUpdate("DELETE FROM orders WHERE qty = 1")).append('\n');
        }
        db.commit();
        try (PreparedStatement p = db.prepareStatement(
                "SELECT COUNT(*), SUM(cents) FROM orders WHERE customer = ? AND placed >= ?")) {
            for (int id = 1; id <= customers; id += 37) {
                p.setInt(1, id);
                p.setDate(2, java.sql.Date.valueOf("2010-01-01"));
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    log.append("customer ").append(id).append(": ").append(r.getLong(1)).append(' ')
                            .append(r.getLong(2)).append('\n');
                }
            }
        }
        query(db, "after", "SELECT item, COUNT(*), SUM(cents) FROM orders GROUP BY item ORDER BY item");
        Results.write("log.txt", log);
        System.out.println(engine + ": " + customers + " customers, " + orders + " orders loaded, "
                + "queries written");
    }

    private static int load(Connection db, Path in, String file, String sql, boolean commitEvery) throws Exception {
        int n = 0;
        try (PreparedStatement p = db.prepareStatement(sql)) {
            for (String line : Results.read(in, file).split("\n")) {
                String[] f = line.split("\t");
                for (int i = 0; i < f.length; i++) {
                    String v = f[i];
                    if (v.length() == 10 && v.charAt(4) == '-') {
                        p.setDate(i + 1, java.sql.Date.valueOf(v));
                    } else if (!v.isEmpty() && v.chars().allMatch(Character::isDigit)) {
                        p.setLong(i + 1, Long.parseLong(v));
                    } else {
                        p.setString(i + 1, v);
                    }
                }
                p.addBatch();
                if (++n % 500 == 0) {
                    p.executeBatch();
                    if (commitEvery) {
                        db.commit();
                    }
                }
            }
            if (n % 500 != 0) {
                p.executeBatch();
            }
        }
        return n;
    }

    /** Writes the rows of {@code sql} to {@code out/<name>.txt}, one tab-separated line each. */
    static void query(Connection db, String name, String sql) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery(sql)) {
            ResultSetMetaData m = r.getMetaData();
            for (int i = 1; i <= m.getColumnCount(); i++) {
                sb.append(i > 1 ? "\t" : "").append(m.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT));
            }
            sb.append('\n');
            while (r.next()) {
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    Object v = r.getObject(i);
                    String text = v instanceof BigDecimal ? ((BigDecimal) v).toPlainString() : String.valueOf(v);
                    sb.append(i > 1 ? "\t" : "").append(text);
                }
                sb.append('\n');
            }
        }
        Results.write(name + ".txt", sb);
    }
}
