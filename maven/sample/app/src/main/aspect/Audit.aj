package sample.app;

import sample.lib.Inventory;

// Prints every change of the library's inventory the application makes.
public aspect Audit {
    private int changes;

    after(String item, int n) returning: call(void Inventory.*(String, int)) && args(item, n) && within(sample.app..*) {
        changes++;
        System.out.println("[audit] " + thisJoinPoint.getSignature().getName() + " " + n + " " + item);
    }

    /** How many changes were audited. */
    public int changes() {
        return changes;
    }

    declare warning: get(* System.out) && within(sample.app.Main): "Main prints to System.out";
}
