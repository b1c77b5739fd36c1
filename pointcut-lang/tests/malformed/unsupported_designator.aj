aspect Locks {
    before(): lock() && within(com.acme..*) {
    }
}
