// The kit studio's page: the form from GET /api/settings, a build posted after each change, its preview drawn.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const form = document.getElementById('form');
const formError = document.getElementById('form-error');
const view = document.getElementById('view');
const viewNote = document.getElementById('view-note');
const progress = document.getElementById('progress');
const download = document.getElementById('download');

const OPEN_GROUPS = ['rules', 'box', 'dice', 'printer'];  // the others start folded
const CHANGE_WAIT_MS = 600;  // after the last keystroke, the settings are posted
const POLL_MS = 500;
let schema = null;
let current = null;   // the id of the build shown
let shownPreview = null;
let posted = 0;        // posts made; an answer to an older one is ignored
let timer = null;
let blocked = false;   // the form holds a refused value

// -- the form ------------------------------------------------------------------------------------
function shown(value) {
  if (value === null || value === undefined) return 'none';
  if (value === true) return 'on';
  if (value === false) return 'off';
  return String(value);
}

function fieldId(key) { return 'f-' + key.replace('.', '-'); }

function control(s) {
  let input;
  if (s.type === 'choice' || s.type === 'bool') {
    input = document.createElement('select');
    for (const c of (s.type === 'bool' ? [true, false] : s.choices)) {
      const option = document.createElement('option');
      option.value = shown(c);
      option.textContent = shown(c);
      input.append(option);
    }
  } else {
    input = document.createElement('input');
    input.type = 'text';
    input.inputMode = s.type === 'int' ? 'numeric' : s.type === 'float' ? 'decimal' : 'text';
    if (s.nullable && s.default === null) input.placeholder = 'auto';
    if (s.suggestions) {
      const list = document.createElement('datalist');
      list.id = fieldId(s.key) + '-list';
      for (const v of s.suggestions) { const o = document.createElement('option'); o.value = v; list.append(o); }
      input.setAttribute('list', list.id);
      input.after(list);
      input.dataset.list = list.id;
    }
  }
  input.id = fieldId(s.key);
  input.name = s.key;
  input.value = s.default === null && input.tagName === 'INPUT' ? '' : shown(s.default);
  input.title = 'allowed: ' + s.allowed;
  if (s.held) input.disabled = true;
  return input;
}

function renderForm() {
  const byGroup = new Map(schema.groups.map(g => [g.name, []]));
  for (const s of schema.settings) byGroup.get(s.group).push(s);
  for (const g of schema.groups) {
    // Each of the model's sections is a group; the ones most people change are open, the others one click away.
    const fold = document.createElement('details');
    fold.open = OPEN_GROUPS.includes(g.name);
    const summary = document.createElement('summary');
    summary.textContent = g.title;
    fold.append(summary);
    const set = document.createElement('fieldset');
    set.dataset.group = g.name;
    set.setAttribute('aria-label', g.title);
    fold.append(set);
    for (const s of byGroup.get(g.name)) {
      const box = document.createElement('div');
      box.className = 'field';
      box.dataset.key = s.key;
      const label = document.createElement('label');
      label.htmlFor = fieldId(s.key);
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = s.name.replace(/_(mm|ms|deg|mb)$/, '').replaceAll('_', ' ');
      const unit = document.createElement('span');
      unit.className = 'unit';
      unit.textContent = s.unit || '';
      const input = control(s);
      label.append(name, input, unit);
      if (input.dataset.list) label.append(document.getElementById(input.dataset.list) || '');
      const help = document.createElement('p');
      help.className = 'help';
      help.textContent = s.help + (s.held ? ' (set by whoever runs the studio)' : '');
      const error = document.createElement('p');
      error.className = 'error';
      error.id = 'e-' + s.key.replace('.', '-');
      error.setAttribute('role', 'alert');
      box.append(label, help, error);
      set.append(box);
    }
    form.append(fold);
  }
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  document.getElementById('reset').addEventListener('click', () => {
    for (const s of schema.settings) {
      const input = document.getElementById(fieldId(s.key));
      input.value = s.default === null && input.tagName === 'INPUT' ? '' : shown(s.default);
    }
    changed();
  });
}

function settings() {
  // What differs from the defaults, as typed (the server reads it as the command line reads its flags).
  const out = {};
  for (const s of schema.settings) {
    if (s.held) continue;
    const value = document.getElementById(fieldId(s.key)).value;
    const given = s.default === null && s.type !== 'choice' ? value.trim() !== '' : value !== shown(s.default);
    if (!given) continue;
    (out[s.group] ||= {})[s.name] = value;
  }
  return out;
}

function showErrors(field, message) {
  for (const box of form.querySelectorAll('.field')) {
    box.classList.remove('invalid');
    box.querySelector('.error').textContent = '';
  }
  formError.textContent = '';
  if (!message) return;
  const box = field && form.querySelector(`.field[data-key="${field}"]`);
  if (box) {
    box.closest('details').open = true;
    box.classList.add('invalid');
    box.querySelector('.error').textContent = message;
  } else {
    formError.textContent = message;
  }
}

function changed() {
  clearTimeout(timer);
  timer = setTimeout(post, CHANGE_WAIT_MS);
}

// -- builds --------------------------------------------------------------------------------------
async function post() {
  const mine = ++posted;
  let answer;
  try {
    const response = await fetch('/api/builds', {
      method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({settings: settings()}),
    });
    answer = await response.json();
    answer.status = response.status;
  } catch (err) {
    say('the studio does not answer (is it still running?)', 'failed');
    return;
  }
  if (mine !== posted) return;
  if (answer.status === 400) {
    showErrors(answer.field, answer.error);
    blocked = true;  // the build shown is not of these settings: no download, no progress of it
    setDownload(null);
    say('a setting is refused (in red): the kit is built again once it is allowed', 'failed');
    return;
  }
  blocked = false;
  if (answer.status !== 202) { say(answer.error, 'failed'); return; }
  showErrors(null, null);
  const before = current;
  current = answer.id;
  if (before && before !== current) {
    fetch('/api/builds/' + before, {method: 'DELETE'}).catch(() => {});
  }
  setDownload(null);
  follow(answer);
}

function say(text, state) {
  progress.textContent = text;
  progress.dataset.state = state || '';
}

function setDownload(id) {
  if (id) {
    download.href = `/api/builds/${id}/kit.zip`;
    download.setAttribute('aria-disabled', 'false');
  } else {
    download.href = '#';
    download.setAttribute('aria-disabled', 'true');
  }
}

async function follow(status) {
  while (status && status.id === current && !blocked) {
    if (status.preview && shownPreview !== status.id) await loadPreview(status.id);
    if (status.state === 'done') {
      say(`ready: ${status.parts.length} parts; the zip is ${(status.zip_bytes / 1e6).toFixed(1)} MB`, 'done');
      setDownload(status.id);
      return;
    }
    if (status.state === 'failed') { say('the build failed: ' + status.reason, 'failed'); return; }
    say(status.state === 'queued' ? 'waiting for a free builder…' : status.progress, status.state);
    await new Promise(r => setTimeout(r, POLL_MS));
    if (status.id !== current || blocked) return;
    try {
      const response = await fetch('/api/builds/' + status.id);
      status = await response.json();
      if (!response.ok) { say(status.error, 'failed'); return; }
    } catch (err) {
      say('the studio does not answer (is it still running?)', 'failed');
      return;
    }
  }
}

// -- the 3D view ---------------------------------------------------------------------------------
let renderer = null;
const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(35, 1, 1, 10000);
let controls = null;
let kit = null;

function setUpView() {
  try {
    renderer = new THREE.WebGLRenderer({antialias: true, alpha: true});
  } catch (err) {
    viewNote.textContent = 'this browser cannot draw 3D (WebGL is off); the kit can still be downloaded';
    return;
  }
  renderer.setPixelRatio(window.devicePixelRatio);
  view.prepend(renderer.domElement);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a7f70, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(-0.5, 1.2, 0.8);
  scene.add(sun);
  controls = new OrbitControls(camera, renderer.domElement);
  controls.addEventListener('change', draw);
  new ResizeObserver(resize).observe(view);
  resize();
}

function resize() {
  if (!renderer) return;
  const w = view.clientWidth, h = view.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
  draw();
}

function draw() { if (renderer) renderer.render(scene, camera); }

function frame(object, keepView) {
  const box = new THREE.Box3().setFromObject(object);
  const centre = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3()).length();
  if (!keepView) {
    camera.position.copy(centre).add(new THREE.Vector3(-0.35, 0.85, 0.9).normalize().multiplyScalar(size * 1.45));
    camera.near = size / 100;
    camera.far = size * 20;
    camera.updateProjectionMatrix();
  }
  if (controls) { controls.target.copy(centre); controls.update(); }
}

async function loadPreview(id) {
  const loader = new GLTFLoader();
  let gltf;
  try {
    gltf = await loader.loadAsync(`/api/builds/${id}/preview.glb`);
  } catch (err) {
    say('the preview could not be read: ' + err, 'failed');
    return;
  }
  const first = kit === null;
  if (kit) scene.remove(kit);
  kit = gltf.scene;
  scene.add(kit);
  frame(kit, !first);
  const names = [];
  kit.traverse(o => { if (o.isMesh) names.push(o.name); });
  shownPreview = id;
  view.dataset.parts = String(names.length);
  view.dataset.tiles = String(names.filter(n => /^tile-\d+$/.test(n)).length);
  view.dataset.build = id;
  viewNote.textContent = renderer ? '' : viewNote.textContent;
  draw();
}

// -- start ---------------------------------------------------------------------------------------
async function start() {
  setUpView();
  schema = await (await fetch('/api/settings')).json();
  renderForm();
  viewNote.textContent = renderer ? 'drawing the box…' : viewNote.textContent;
  post();
}

start();
