/// The web page at `/`: the list, a form to add, a checkbox and a delete button per todo.
/// It draws whatever the WebSocket sends, so a write from anywhere shows up here.
let page = """
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Floe todos</title>
<style>
body { font: 16px system-ui, sans-serif; max-width: 32em; margin: 2em auto; }
li { list-style: none; margin: .3em 0; }
li.done span { text-decoration: line-through; color: #888; }
#status { color: #888; font-size: .8em; }
</style>
</head>
<body>
<h1>Todos</h1>
<form id="add"><input id="text" placeholder="What needs doing?" autofocus> <button>Add</button></form>
<ul id="list"></ul>
<p id="status">connecting…</p>
<script>
const list = document.getElementById("list");
const status = document.getElementById("status");
function draw(todos) {
  list.replaceChildren(...todos.map(todo => {
    const item = document.createElement("li");
    item.className = todo.done ? "done" : "";
    item.dataset.id = todo.id;
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = todo.done;
    box.onchange = () => fetch("/todos/" + todo.id, { method: "PATCH",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ done: box.checked }) });
    const text = document.createElement("span");
    text.textContent = " " + todo.text + " ";
    const remove = document.createElement("button");
    remove.textContent = "×";
    remove.onclick = () => fetch("/todos/" + todo.id, { method: "DELETE" });
    item.append(box, text, remove);
    return item;
  }));
}
function connect() {
  const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/live");
  socket.onopen = () => { status.textContent = "live"; };
  socket.onmessage = event => draw(JSON.parse(event.data).todos);
  socket.onclose = () => { status.textContent = "reconnecting…"; setTimeout(connect, 1000); };
}
document.getElementById("add").onsubmit = event => {
  event.preventDefault();
  const input = document.getElementById("text");
  if (!input.value.trim()) return;
  fetch("/todos", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ text: input.value }) });
  input.value = "";
};
connect();
</script>
</body>
</html>
"""
