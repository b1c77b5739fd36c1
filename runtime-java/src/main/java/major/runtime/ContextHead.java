package major.runtime;

/**
 * The fields of a {@link CallingContext} that a woven method's entry and exit
 * touch, in a superclass so that HotSpot lays them out first in the node (a
 * class's own fields follow its superclass's; within a class, HotSpot orders
 * fields by size, the 8-byte ones first, references last): the thread's root
 * in the 4 bytes after the object header, then the keys and the count — one
 * cache line mostly, where the node's own layout put them in three (measured:
 * {@code bench/README.md}, the calling-context profiler's session 12).
 */
abstract class ContextHead {
    /** The thread's root. */
    public final CallingContext root;
    /**
     * Where the node's children are, in its thread's arena: the first slot of
     * its table in the high 32 bits, the table's size less one in the low ones
     * ({@code CallingContext.arena}). What the root's {@link #current} holds
     * while this node is current. Changes when the table grows.
     */
    long key;
    /**
     * The parent's {@link #key} (the root's own for the root): what woven code
     * makes current when the frame returns ({@code node.root.current =
     * node.up}); kept equal to it when the parent's table grows.
     */
    long up;
    /** How many times the context was entered. */
    public long calls;
    /**
     * In a thread's root: the {@link #key} of the thread's current node (woven
     * code sets it to its parent's on return; nothing else may write it). A
     * number, not a reference: the root outlives young collections, and a
     * reference stored into an old object on every method entry and exit
     * costs G1's post-write barrier its slow path each time (measured: 30% of
     * a woven workload's samples).
     */
    long current;

    /**
     * @param root the thread's root, or null for a root (itself)
     */
    ContextHead(CallingContext root) {
        this.root = root == null ? (CallingContext) this : root;
    }
}
