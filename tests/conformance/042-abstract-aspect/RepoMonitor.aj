public aspect RepoMonitor extends Monitor {
    protected pointcut monitored(): execution(* Main.Repository.*(..));

    protected String label() {
        return "repo";
    }
}
