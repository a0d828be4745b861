// Must compile: the type-safe builder written as Realm's documentation writes it, so that the
// rejections next door come from the types, not from the setup.
import Floe

enum TaskPriority: Int, PersistableEnum {
    case low, high
}

final class Project: Object {
    @Persisted var name = ""
    @Persisted var tasks: List<Task>
}

final class Task: Object {
    @Persisted var name = ""
    @Persisted var priority = 0
    @Persisted var isComplete = false
    @Persisted var assignee: String?
    @Persisted var progressMinutes = 0
    @Persisted var level = TaskPriority.low
    @Persisted var labels: MutableSet<String>
    @Persisted var scores: List<Double>
    @Persisted var notes: Map<String, String>
    @Persisted var extra: AnyRealmValue
    @Persisted(originProperty: "tasks") var projects: LinkingObjects<Project>
}

extension Realm {
    func queries() throws -> [Int] {
        let tasks = objects(Task.self)
        let projects = objects(Project.self)
        return [
            try tasks.where { $0.priority > 5 && $0.isComplete == false }.count,
            try tasks.where { $0.assignee == nil || $0.assignee == "Alex" }.count,
            try tasks.where { !$0.isComplete && $0.name.starts(with: "Ali", options: .caseInsensitive) }.count,
            try tasks.where { $0.name.contains("ex", options: [.caseInsensitive, .diacriticInsensitive]) }.count,
            try tasks.where { $0.name.like("R?x*", caseInsensitive: true) || $0.name.ends(with: "x") }.count,
            try tasks.where { $0.name.equals("rex", options: .caseInsensitive) && $0.name.notEquals("Max") }.count,
            try tasks.where { $0.progressMinutes.contains(1...5) || $0.progressMinutes.contains(10..<20) }.count,
            try tasks.where { $0.priority.in([1, 2, 3]) && $0.level == .high }.count,
            try tasks.where { $0.labels.containsAny(in: ["home", "work"]) && $0.labels.contains("urgent") }.count,
            try tasks.where { $0.scores.avg > 2.5 && $0.scores.max < 9 && $0.scores.count > 1 }.count,
            try tasks.where { $0.notes["due"] == "today" || $0.notes.keys.starts(with: "a") || $0.notes.values == "x" }.count,
            try tasks.where { $0.extra == .string("x") || $0.extra[0] == .int(1) || $0.extra["k"] == .bool(true) || $0.extra.any == .none }.count,
            try tasks.where { $0.projects.name == "Home" && $0.projects.count == 1 }.count,
            try projects.where { $0.tasks.name == "Laundry" && $0.tasks.priority.sum > 10 }.count,
            try projects.where { ($0.tasks.isComplete == true && $0.tasks.assignee == "Alex").count > 0 }.count,
        ]
    }
}
