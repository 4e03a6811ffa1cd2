;;; faultlens.el --- faultlens language server through eglot  -*- lexical-binding: t; -*-

;; Install: put this file on your `load-path', then
;;   (require 'faultlens)
;;   (setq faultlens-trusted-directories '("~/src/"))   ; where faultlens may build and run code
;; and M-x eglot in a C buffer of the project.  See editors/README.md.
;;
;; eglot runs one server per buffer: with this file loaded, C buffers use
;; faultlens instead of clangd.  Remove the entry from
;; `eglot-server-programs' to go back.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'project)

(defgroup faultlens nil
  "Spectrum-based fault localization in the editor."
  :group 'tools)

(defcustom faultlens-command '("faultlens" "lsp")
  "Command that starts the faultlens language server."
  :type '(repeat string))

(defcustom faultlens-trusted-directories nil
  "Directories under which faultlens may build and run the project's code.
Elsewhere it only shows results already in .faultlens/results.json."
  :type '(repeat directory))

(defcustom faultlens-settings
  '(:measure "ochiai" :topN 10 :autoRunOnSave :json-false :timeoutSeconds 10)
  "Settings sent to the server (see editors/README.md)."
  :type 'plist)

(defvar faultlens-last-status nil
  "The last faultlens/status notification, as a plist.")

(defclass faultlens-server (eglot-lsp-server) ()
  :documentation "The faultlens language server.")

(defun faultlens--trusted-p (root)
  "Non-nil when ROOT lies under one of `faultlens-trusted-directories'."
  (let ((root (file-truename (file-name-as-directory root))))
    (cl-some (lambda (dir)
               (string-prefix-p (file-truename (file-name-as-directory dir)) root))
             faultlens-trusted-directories)))

(cl-defmethod eglot-initialization-options ((server faultlens-server))
  (let ((root (project-root (eglot--project server))))
    (append (list :trusted (if (faultlens--trusted-p root) t :json-false))
            faultlens-settings)))

(cl-defmethod eglot-handle-notification
  ((_server faultlens-server) (_method (eql faultlens/status)) &rest params)
  (setq faultlens-last-status params)
  (when (member (plist-get params :state) '("error" "untrusted"))
    (message "faultlens: %s" (plist-get params :message))))

(cl-defmethod eglot-handle-notification
  ((_server faultlens-server) (_method (eql faultlens/scores)) &rest _params)
  "Scores are for heatmap clients; eglot shows diagnostics instead."
  nil)

(defun faultlens--command (command &optional arguments)
  "Run faultlens COMMAND with ARGUMENTS (a vector) on the current server."
  (let ((server (eglot--current-server-or-lose)))
    (if (fboundp 'eglot-execute)
        (eglot-execute server (list :command command :arguments (or arguments [])))
      (eglot-execute-command server command (or arguments [])))))

(defun faultlens-localize ()
  "Build, run the tests and rank again (trusted projects only)."
  (interactive)
  (faultlens--command "faultlens.localize"))

(defun faultlens-diagnose ()
  "Diagnose the failing tests of the last results (trusted projects only)."
  (interactive)
  (faultlens--command "faultlens.diagnose"))

(defun faultlens-set-measure (measure)
  "Rank by MEASURE (e.g. \"dstar\")."
  (interactive "sMeasure: ")
  (faultlens--command "faultlens.setMeasure" (vector measure)))

(defun faultlens-ranking ()
  "Show the whole ranking (the CLI's JSON) in a buffer."
  (interactive)
  (let ((ranking (jsonrpc-request (eglot--current-server-or-lose) :faultlens/ranking nil)))
    (with-current-buffer (get-buffer-create "*faultlens ranking*")
      (erase-buffer)
      (insert (json-encode ranking))
      (json-pretty-print-buffer)
      (display-buffer (current-buffer)))))

(add-to-list 'eglot-server-programs
             `((c-mode c-ts-mode c++-mode c++-ts-mode) . (faultlens-server . ,faultlens-command)))

(provide 'faultlens)
;;; faultlens.el ends here
